import type { Command } from "commander";
import { joinBrokerElection } from "../../app/broker-process.js";
import { openIndexToWrite } from "../../app/open-index.js";
import { collectGarbage } from "../../core/heap.js";
import type { CommandModule } from "../program.js";

/** Content-free lines on stderr (stdout carries protocol messages only). */
const log = (line: string) => process.stderr.write(`recall mcp[${process.pid}]: ${line}\n`);

/**
 * `recall mcp`: the MCP stdio server. stdout carries protocol messages only; anything the
 * server has to say goes to stderr. Every `recall mcp` takes part in broker election: the
 * elected one also runs the index worker, on a thread of its own (app/broker-process.ts), and
 * answers index/reindex requests on the broker's local channel;
 * the others only read, and one of them takes over within seconds when the broker exits.
 */
export const mcpCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("mcp")
      .description(
        "run the MCP stdio server (search_history, get_conversation, search_chats, read_chat) and take part in broker election",
      )
      .action(async () => {
        const { home, env } = ctx();
        const config = ctx().config();
        const { serveStdio } = await import("../../mcp/server.js");
        const { mcpToolSet } = await import("../../app/tool-set.js");
        const { warmUpQueries } = await import("../../app/search-warm-up.js");
        const store = await openIndexToWrite({ home, engine: ctx().forcedEngine });
        const version = program.version() ?? "0.0.0";
        const broker = joinBrokerElection({ home, file: store.file, sourceEnv: env, config, log });
        let closing: Promise<void> | null = null;
        const shutdown = () => (closing ??= broker.close().catch(() => {}));
        const onSignal = () => void shutdown().finally(() => process.exit(0));
        process.once("SIGTERM", onSignal);
        process.once("SIGINT", onSignal);
        // search_chats/read_chat are bound to the app of this server's working directory.
        const cwd = process.cwd();
        const toolSet = mcpToolSet({ db: store.db, engine: store.engine, home, env, config, cwd });
        // Before the first request is read: a first search then costs what a later one does.
        const rehearsal = warmUpQueries(store.db).map((query) => ({
          name: "search_history",
          arguments: { query, limit: 10 },
        }));
        try {
          await serveStdio({
            name: "recall",
            version,
            tools: toolSet.tools,
            context: { session: env.RECALL_SESSION_ID || undefined },
            log,
            indexFile: store.file,
            onCall: toolSet.onCall,
            rehearsal,
            onRehearsed: (ms) => {
              collectGarbage();
              log(`warmed up search in ${Math.round(ms)} ms`);
            },
          });
        } finally {
          await shutdown();
          process.removeListener("SIGTERM", onSignal);
          process.removeListener("SIGINT", onSignal);
          toolSet.close();
          store.close();
        }
      });
  },
};
