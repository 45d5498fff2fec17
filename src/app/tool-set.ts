import { auditCall } from "../audit/audit-log.js";
import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";
import { bindChatApp } from "../sources/dyad/apps.js";
import { indexedDyadDatabases } from "../sources/dyad/source.js";
import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import type { ToolDefinition } from "../tools/definition.js";
import { createGetConversationTool } from "../tools/get-conversation.js";
import { createSearchHistoryTool } from "../tools/search-history.js";
import { createStandaloneChatTools } from "./chat-tools.js";
import type { TeamAccess } from "../tools/team-access.js";
import { openTeamAccess } from "./team.js";

/**
 * search_history and get_conversation over one index: the objects MCP and the HTTP API both serve.
 * With `team` (a configured team store), their `scope: "team"` reads it.
 */
export function historyTools(db: Db, engine: Engine, team: TeamAccess | null = null) {
  return {
    searchHistory: createSearchHistoryTool(db, engine, { team }),
    getConversation: createGetConversationTool(db, team),
  };
}

/** One call as a server reports it to its audit hook (the output is summarised, never kept). */
export interface ToolCallRecord {
  tool: string;
  durationMs: number;
  output: string;
  args: unknown;
}

export interface ServedToolSet {
  tools: ToolDefinition[];
  /** The audit hook: one content-free line per call (counts and ids, never the query). */
  onCall: (call: ToolCallRecord) => void;
  close(): void;
}

/**
 * What `recall mcp` serves: the history tools, and search_chats/read_chat bound to the Dyad app
 * whose folder holds `cwd` (app/chat-tools.ts), each call audited as surface "mcp".
 */
export function mcpToolSet(options: {
  db: Db;
  engine: Engine;
  home: string;
  env: Env;
  config: Config;
  cwd: string;
}): ServedToolSet {
  const { db, engine, home, env, config, cwd } = options;
  const chatTools = createStandaloneChatTools(db, () => bindChatApp(indexedDyadDatabases(env, config), cwd));
  const team = openTeamAccess(env, config);
  const history = historyTools(db, engine, team?.access ?? null);
  return {
    tools: [history.searchHistory, history.getConversation, ...chatTools.tools],
    onCall: (call) =>
      auditCall(home, "mcp", call.tool, call.durationMs, call.output, call.args, chatTools.chatSource()),
    close: () => {
      chatTools.close();
      void team?.close();
    },
  };
}
