import type { Command } from "commander";
import { appendAudit, summariseOutput } from "../../audit/audit-log.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { openHistoryStore } from "../../store/history-store.js";
import { createGetConversationTool } from "../../tools/get-conversation.js";
import { createSearchHistoryTool } from "../../tools/search-history.js";
import type { CommandModule } from "../program.js";

/**
 * `recall mcp`: the MCP stdio server. stdout carries protocol messages only; anything the
 * server has to say goes to stderr.
 */
export const mcpCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("mcp")
      .description("run the MCP stdio server (search_history, get_conversation)")
      .action(async () => {
        const { home, env } = ctx();
        const { serveStdio } = await import("../../mcp/server.js");
        const store = await openHistoryStore({
          home,
          projectionVersion: PROJECTION_VERSION,
          engine: ctx().forcedEngine,
        });
        const version = program.version() ?? "0.0.0";
        try {
          await serveStdio({
            name: "recall",
            version,
            tools: [createSearchHistoryTool(store.db, store.engine), createGetConversationTool(store.db)],
            context: { session: env.RECALL_SESSION_ID || undefined },
            onCall: (call) =>
              appendAudit(home, {
                at: Date.now(),
                surface: "mcp",
                tool: call.tool,
                durationMs: Math.round(call.durationMs * 10) / 10,
                ...summariseOutput(call.tool, call.output),
              }),
          });
        } finally {
          store.close();
        }
      });
  },
};
