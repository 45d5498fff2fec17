import { DEFAULT_REDACTION, type Redaction } from "../projection/index.js";
import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import type { GetConversationInput } from "../tools/get-conversation.js";
import type { SearchHistoryInput } from "../tools/search-history-input.js";
import type { ToolDefinition } from "../tools/definition.js";
import { historyTools } from "./tool-set.js";

/** What every route reads from: the index (read only), the tools over it, and RECALL_HOME (audit log). */
export interface HttpServices {
  db: Db;
  engine: Engine;
  home: string;
  /** The agent-bridge store (docs/bridge-store.md): run logs and decisions, read only. */
  bridgeRoot: string;
  /**
   * What secrets in text read from the bridge store itself (run logs, decision history) become,
   * as in the index's own text (config.json `redaction`).
   */
  redaction: Redaction;
  now: () => number;
  tools: {
    searchHistory: ToolDefinition<typeof SearchHistoryInput>;
    getConversation: ToolDefinition<typeof GetConversationInput>;
  };
}

/**
 * The routes' view of one index: a read connection, the same tool objects MCP serves, the audit
 * home, and the agent-bridge store the run and decision links point into (read only).
 */
export function createHttpServices(
  db: Db,
  engine: Engine,
  home: string,
  bridgeRoot: string,
  redaction: Redaction = DEFAULT_REDACTION,
): HttpServices {
  return {
    db,
    engine,
    home,
    bridgeRoot,
    redaction,
    now: () => Date.now(),
    tools: historyTools(db, engine),
  };
}
