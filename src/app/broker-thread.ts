/**
 * The broker's thread (broker-process.ts): the index's writer and its background worker run
 * here, so the thread that answers MCP or HTTP requests only ever reads, and a search never waits
 * behind an indexing batch, an FTS5 merge or a term's statistics. The thread runs at a lower
 * CPU priority (and so does the pipeline's thread it starts): on two cores, a search sent while
 * the broker and its pipeline both work otherwise shares a core with them.
 */
import { parentPort, workerData } from "node:worker_threads";
import { errorKind, errorParts } from "../core/errors.js";
import { lowerThreadPriority } from "../platform/thread-priority.js";
import { startBrokerDuties, type BrokerDuties } from "./broker-duties.js";
import type { BrokerThreadInit, FromBrokerThread, ToBrokerThread } from "./broker-thread-protocol.js";

const port = parentPort!;
const post = (message: FromBrokerThread) => port.postMessage(message);

lowerThreadPriority();
let duties: BrokerDuties | null = null;
try {
  duties = startBrokerDuties(workerData as BrokerThreadInit, (line) => post({ type: "log", line }));
} catch (error) {
  post({ type: "failed", kind: errorKind(error) });
}

port.on("message", (message: ToBrokerThread) => {
  if (message.type === "stop") {
    void (duties?.stop() ?? Promise.resolve()).finally(() => {
      duties = null;
      post({ type: "stopped" });
      port.close();
    });
    return;
  }
  const { id, request } = message;
  if (!duties) {
    post({ type: "refused", id, message: "not the broker" });
    return;
  }
  duties
    .answer(request, (figures) => post({ type: "progress", id, figures }))
    .then(
      (result) => post({ type: "answer", id, result }),
      (error: unknown) => post({ type: "refused", id, ...errorParts(error) }),
    );
});
