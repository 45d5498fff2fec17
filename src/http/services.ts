import { DEFAULT_REDACTION, type Redaction } from "../projection/index.js";
import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import { createGetConversationTool } from "../tools/get-conversation.js";
import { createSearchHistoryTool } from "../tools/search-history.js";
import type { HttpServices } from "./route.js";

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
    tools: {
      searchHistory: createSearchHistoryTool(db, engine),
      getConversation: createGetConversationTool(db),
    },
  };
}
