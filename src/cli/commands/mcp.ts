import type { Command } from "commander";
import { auditCall } from "../../audit/audit-log.js";
import { systemClock } from "../../core/clock.js";
import { electBroker, type BrokerHandle } from "../../indexer/broker.js";
import { forget, ForgetScope } from "../../indexer/forget.js";
import { createIndexWorker, type IndexWorker } from "../../indexer/worker.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { bindChatApp, serverProject } from "../../sources/dyad/apps.js";
import { dyadDatabases } from "../../sources/dyad/source.js";
import { createSources } from "../../sources/registry.js";
import { openHistoryStore, registerFunctions } from "../../store/history-store.js";
import { openDatabase, type Db } from "../../store/open.js";
import { createGetConversationTool } from "../../tools/get-conversation.js";
import { createSearchHistoryTool } from "../../tools/search-history.js";
import type { CommandModule } from "../program.js";

/** Content-free lines on stderr (stdout carries protocol messages only). */
const log = (line: string) => process.stderr.write(`recall mcp[${process.pid}]: ${line}\n`);

/**
 * `recall mcp`: the MCP stdio server. stdout carries protocol messages only; anything the
 * server has to say goes to stderr. Every `recall mcp` takes part in broker election: the
 * elected one also runs the index worker in this process (bounded batches, yielding to MCP
 * requests between them) and answers index/reindex requests on the broker's local channel;
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
        const { createStandaloneChatTools } = await import("../../mcp/chat-tools.js");
        const store = await openHistoryStore({
          home,
          projectionVersion: PROJECTION_VERSION,
          engine: ctx().forcedEngine,
        });
        const version = program.version() ?? "0.0.0";
        let writer: Db | null = null;
        let worker: IndexWorker | null = null;
        const broker: BrokerHandle = electBroker({
          home,
          onElected: () => {
            try {
              // The worker writes through its own connection; searches keep reading through theirs.
              writer = openDatabase(store.file);
              registerFunctions(writer);
              const w = createIndexWorker({
                db: writer,
                createSources: () => createSources(env, config),
                projectionVersion: PROJECTION_VERSION,
                clock: systemClock,
                rawMaxBytesPerSource: config.retention.rawMaxBytesPerSource,
                writer: "broker",
                log,
              });
              w.start();
              worker = w;
              log(`elected broker; indexing ${w.sourceNames().join(", ") || "no sources"} in the background`);
            } catch (error) {
              // Still the broker (no second writer starts), but without a worker: say so.
              log(`elected broker, but the index worker could not start (${(error as Error).name})`);
            }
            return async () => {
              await worker?.stop();
              worker = null;
              writer?.close();
              writer = null;
            };
          },
          onRequest: async (request, progress) => {
            const w = worker;
            if (!w) throw new Error("not the broker");
            switch (request.command) {
              case "ping":
                return { pid: process.pid };
              case "status":
                return { pid: process.pid, worker: w.figures() };
              case "index":
                return w.catchUp(progress);
              case "forget":
                // The broker is the one writer: `recall forget` asks it when it runs.
                return forget(writer!, ForgetScope.parse(request.args), Date.now());
              case "reindex": {
                log("reindex requested over the local channel");
                const result = await w.reindex(progress);
                log(`reindex done: ${result.index.records} records in ${result.index.batches} batches`);
                return result;
              }
              default:
                throw new Error(`unknown request ${request.command}`);
            }
          },
        });
        let closing: Promise<void> | null = null;
        const shutdown = () => (closing ??= broker.close().catch(() => {}));
        const onSignal = () => void shutdown().finally(() => process.exit(0));
        process.once("SIGTERM", onSignal);
        process.once("SIGINT", onSignal);
        // search_chats/read_chat are bound to the app whose folder is this server's project.
        const project = serverProject(process.cwd());
        const chatTools = createStandaloneChatTools(store.db, () =>
          bindChatApp(dyadDatabases(env, config), project),
        );
        try {
          await serveStdio({
            name: "recall",
            version,
            tools: [
              createSearchHistoryTool(store.db, store.engine),
              createGetConversationTool(store.db),
              ...chatTools.tools,
            ],
            context: { session: env.RECALL_SESSION_ID || undefined },
            onCall: (call) => auditCall(home, "mcp", call.tool, call.durationMs, call.output),
          });
        } finally {
          await shutdown();
          process.removeListener("SIGTERM", onSignal);
          process.removeListener("SIGINT", onSignal);
          chatTools.close();
          store.close();
        }
      });
  },
};
