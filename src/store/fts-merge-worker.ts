import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { RecallError } from "../core/errors.js";
import { CRISIS_MERGE } from "./fts-merge.js";

/**
 * FTS5 segment merging on a worker thread with its own connection, for the history.db split and
 * the broker's idle time (app/index-upkeep.ts). One FTS5 'merge' command can write a whole
 * common term's doclist (FTS5 checks its page budget only between terms), so on the host's
 * thread a merge step cannot be bounded from outside: at 1M messages 4 of 15,744 steps took
 * 25–50 ms of CPU, and one of a half-merged index's 0.6 s. Here the calling thread only spawns
 * the worker and awaits it. Only safe while nothing else writes the file (the split's copy and
 * the broker's indexer wait meanwhile); each 'merge' is its own transaction, so a kill keeps
 * what was merged and the next run merges the rest (merging does not change what the index finds).
 */
export interface WorkerMerge {
  /** 'merge' commands that wrote segments, each one transaction. */
  transactions: number;
  /** The worker's run, spawn to exit (the host's thread is free meanwhile). */
  wallMs: number;
}

/** Pages one 'merge' command writes: big transactions, fewer commits (the WAL checkpointer keeps the WAL small). */
export const WORKER_MERGE_PAGES = 1000;

const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
try {
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  const changes = db.prepare("SELECT total_changes()").pluck();
  const merge = db.prepare("INSERT INTO recall_fts (recall_fts, rank) VALUES ('merge', " + workerData.pages + ")");
  // A negative count starts a merge of every segment into one, even of a lone segment.
  const rewrite = db.prepare("INSERT INTO recall_fts (recall_fts, rank) VALUES ('merge', -" + workerData.pages + ")");
  const until = performance.now() + workerData.maxMs;
  let transactions = 0;
  while (transactions < workerData.maxTransactions && performance.now() < until) {
    const before = changes.get();
    (transactions === 0 && workerData.rewrite ? rewrite : merge).run();
    // The command counts as one change; more means segments were written.
    if (changes.get() - before <= 1) break;
    transactions++;
  }
  if (workerData.crisisMerge !== null)
    db.exec("INSERT INTO recall_fts (recall_fts, rank) VALUES ('crisismerge', " + workerData.crisisMerge + ")");
  parentPort.postMessage({ transactions });
} finally {
  db.close();
}`;

export interface WorkerMergeOptions {
  /** Pages per 'merge' command (an integer: FTS5 takes configuration values only as SQL integers). */
  pages?: number;
  /** Stop after this many transactions (tests: a merge cut short, as a kill leaves it). */
  maxTransactions?: number;
  /** FTS5's crisismerge to set once merged (null: left as it is). */
  crisisMerge?: number | null;
  /** Stop starting transactions once this many milliseconds have passed. */
  maxMs?: number;
  /**
   * Rewrite every segment into one ('merge' with a negative count first), which drops the
   * tombstones of deleted rows (see ftsRewriteDue); else merge as automerge would.
   */
  rewrite?: boolean;
}

/**
 * Merges `file`'s recall_fts on a worker until no level holds FTS5's `usermerge` (4) segments,
 * as the bounded steps did (or, with `rewrite`, until every segment is one), then sets
 * crisismerge back to the bounded policy's CRISIS_MERGE.
 */
export function mergeOffThread(file: string, options: WorkerMergeOptions = {}): Promise<WorkerMerge> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const started = performance.now();
  const workerData = {
    driver,
    file,
    pages: Math.max(1, Math.floor(options.pages ?? WORKER_MERGE_PAGES)),
    maxTransactions: options.maxTransactions ?? Number.MAX_SAFE_INTEGER,
    maxMs: options.maxMs ?? Number.MAX_SAFE_INTEGER,
    rewrite: options.rewrite ?? false,
    crisisMerge: options.crisisMerge === undefined ? CRISIS_MERGE : options.crisisMerge,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(SCRIPT, { eval: true, workerData });
    let answer: { transactions: number } | null = null;
    worker.once("message", (m: { transactions: number }) => (answer = m));
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (answer) resolve({ transactions: answer.transactions, wallMs: performance.now() - started });
      else reject(new RecallError("Internal", `the FTS5 merge of ${file} stopped (exit ${code})`));
    });
  });
}
