import { Worker } from "node:worker_threads";
import { errorFromParts, errorKind } from "../core/errors.js";
import { electBroker, type BrokerHandle, type BrokerRequest } from "../indexer/broker.js";
import { threadEntry } from "../platform/thread-entry.js";
import type { BrokerDuties, BrokerDutiesSpec } from "./broker-duties.js";
import type { FromBrokerThread, ToBrokerThread } from "./broker-thread-protocol.js";

export interface BrokerProcessOptions extends BrokerDutiesSpec {
  /** Content-free lines for stderr. */
  log: (line: string) => void;
}

/**
 * A broker's thread that ended unasked (a crash, a heap limit) is started again this long after:
 * the process stays the broker, and an index nobody writes would go stale without a word.
 */
export const THREAD_RESTART_MS = 30_000;
/**
 * How long a new broker waits before it starts its work (its thread, the writer, the first
 * cycle). A client that starts `recall mcp` sends initialize, tools/list and often a first call
 * at once; started at election, the thread's start-up (loading its code, opening the writer) and
 * first cycle took the cores those needed. Local channel requests start it at once.
 */
const FIRST_WORK_DELAY_MS = 1_000;
/** How long a closing broker waits for its thread's batch in progress before ending it. */
const STOP_WAIT_MS = 30_000;

/**
 * A long-running surface's part in broker election (`recall mcp`, `recall serve`): the elected
 * process runs the index's writer and worker (broker-duties.ts) on a thread of its own
 * (broker-thread.ts) and answers the local channel's requests — index, reindex and forget, the
 * writes other recall processes ask of the index's one writer — through it; the others only
 * read, and one of them takes over within seconds when the broker exits. On the thread, no
 * request of this process waits behind a batch: on the main thread, a first call sent 0.5–3 s
 * after a fresh broker started took p95 53–59 ms at 1M messages against 30–38 ms at once.
 */
export function joinBrokerElection(options: BrokerProcessOptions): BrokerHandle {
  const { log } = options;
  const spec: BrokerDutiesSpec = {
    home: options.home,
    file: options.file,
    sourceEnv: options.sourceEnv,
    config: options.config,
  };
  let duties: BrokerDuties | null = null;
  /** Starts the broker's work now if it has not started (a request came before the delay ended). */
  let begin = () => {};
  return electBroker({
    home: options.home,
    onElected: () => {
      log("elected broker");
      let closed = false;
      begin = () => {
        clearTimeout(timer);
        if (!duties && !closed) duties = startDuties(spec, log);
      };
      const timer = setTimeout(begin, FIRST_WORK_DELAY_MS);
      return async () => {
        closed = true;
        clearTimeout(timer);
        await duties?.stop();
        duties = null;
      };
    },
    onRequest: async (request, progress) => {
      begin();
      if (!duties) throw new Error("not the broker");
      return duties.answer(request, progress);
    },
  });
}

/**
 * The broker's work on its thread. This thread never loads the indexer (sources, projection,
 * worker): only the broker's thread needs them. Without the thread's file (a broken install) the
 * process is still the broker, so no second writer starts, but without a worker: it says so.
 */
function startDuties(spec: BrokerDutiesSpec, log: (line: string) => void): BrokerDuties | null {
  const entry = threadEntry(import.meta.url, "broker-thread.js", "app");
  if (entry) return brokerThread(entry, spec, log);
  log("elected broker, but the index worker could not start (broker-thread.js is missing; reinstall recall)");
  return null;
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  progress: (figures: unknown) => void;
}

/** The broker's duties run on a thread (`entry`), started again `restartMs` after it ends unasked. */
export function brokerThread(
  entry: URL,
  spec: BrokerDutiesSpec,
  log: (line: string) => void,
  restartMs = THREAD_RESTART_MS,
): BrokerDuties {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;
  let thread: Worker | null = null;
  let stopped: (() => void) | null = null;

  const start = () => {
    const worker = new Worker(entry, { workerData: spec });
    thread = worker;
    worker.on("message", (message: FromBrokerThread) => {
      switch (message.type) {
        case "failed":
          return log(`elected broker, but the index worker could not start (${message.kind})`);
        case "log":
          return log(message.line);
        case "progress":
          return pending.get(message.id)?.progress(message.figures);
        case "answer":
          pending.get(message.id)?.resolve(message.result);
          return pending.delete(message.id);
        case "refused":
          pending.get(message.id)?.reject(errorFromParts(message));
          return pending.delete(message.id);
        case "stopped":
          return stopped?.();
      }
    });
    worker.on("error", (error) => log(`the broker's thread failed (${errorKind(error)})`));
    worker.on("exit", () => {
      thread = null;
      for (const p of pending.values()) p.reject(new Error("the broker's thread ended; try again"));
      pending.clear();
      stopped?.();
      if (stopping) return;
      log(`the broker's thread ended; starting it again in ${restartMs / 1000} s`);
      restart = setTimeout(start, restartMs);
    });
  };
  start();

  return {
    answer: (request: BrokerRequest, progress) =>
      new Promise((resolve, reject) => {
        if (!thread) return reject(new Error("not the broker"));
        const id = nextId++;
        pending.set(id, { resolve, reject, progress });
        thread.postMessage({ type: "request", id, request } satisfies ToBrokerThread);
      }),
    stop: async () => {
      stopping = true;
      clearTimeout(restart);
      const worker = thread;
      if (!worker) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        stopped = resolve;
        timer = setTimeout(resolve, STOP_WAIT_MS);
        worker.postMessage({ type: "stop" } satisfies ToBrokerThread);
      });
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
