import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./open.js";

/**
 * WAL checkpoints of a file written in bounded steps, on a worker thread. A connection's
 * automatic checkpoint runs inside the commit that crosses 1,000 WAL pages: it copies them into
 * the database file and syncs it, which made one of the split's steps in a few hundred take
 * 150 ms on the host's thread (50 ms of CPU). With the writer's automatic checkpoints off
 * (`wal_autocheckpoint = 0`), this worker runs PASSIVE checkpoints every `everyMs` on its own
 * connection (PASSIVE: it never waits for nor blocks the writer or readers), and a last one when
 * stopped, so the WAL stays small and the writer's thread never copies or syncs it.
 */
export interface Checkpointer {
  /** A last checkpoint, then the worker ends. */
  stop(): Promise<void>;
}

const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
const checkpoint = () => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});`;

/** The worker alone: checkpointOffThread also turns the connection's own checkpoints off. */
function startCheckpointer(file: string, everyMs = 100): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(SCRIPT, { eval: true, workerData: { driver, file, everyMs } });
  const ended = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // A worker that fails leaves the WAL to grow until it is stopped: never the writer's failure.
  worker.on("error", () => {});
  return {
    async stop() {
      worker.postMessage("stop");
      await ended;
    },
  };
}

/**
 * Moves a WAL connection's checkpoints to a worker until stopped: its automatic checkpoints are
 * turned off meanwhile and put back as they were after the worker's last checkpoint (a host's
 * connection keeps its own setting outside recall's long runs). Null (nothing changed) for an
 * in-memory database or one not in WAL mode.
 */
export function checkpointOffThread(db: Db): Checkpointer | null {
  if (db.memory || String(db.pragma("journal_mode", { simple: true })) !== "wal") return null;
  const autocheckpoint = Number(db.pragma("wal_autocheckpoint", { simple: true }));
  db.pragma("wal_autocheckpoint = 0");
  const checkpointer = startCheckpointer(db.name);
  return {
    async stop() {
      await checkpointer.stop();
      if (db.open) db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
    },
  };
}
