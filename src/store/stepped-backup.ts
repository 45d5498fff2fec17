import { readdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { RecallError } from "../core/errors.js";
import { threadCpuMs } from "../platform/thread-cpu.js";
import type { Db } from "./open.js";
import { makePrivateDbFile } from "./private-files.js";

export interface BackupStep {
  wallMs: number;
  cpuMs: number;
  pages: number;
}

export interface BackupSteps {
  /** Wall time one step aims at: the pages per step follow what a page cost so far. */
  budgetMs: number;
  /** After each step, with its times: an upper bound (they include the event-loop turn between steps). */
  onStep?: (step: BackupStep) => void;
  /** After the copy, the off-thread check's wall time. */
  onCheck?: (ms: number) => void;
}

/** Restarts of an online backup of a rollback-journal host before it gives up (see below). */
export const MAX_BACKUP_RESTARTS = 8;
const MIN_PAGES = 8;
const MAX_PAGES = 256;

/**
 * The shared executor's protected backup (store/migrate.ts's backupDatabase) in bounded steps:
 * SQLite's online backup a few pages per event-loop turn (better-sqlite3 runs each step in its
 * own turn and takes the next step's page count from the progress callback), then the same proof
 * that the copy is usable — it opens, passes quick_check and holds the same tables — with the
 * quick_check, one unbounded call, on a worker thread, so no step holds the host's thread.
 *
 * An online backup starts over when another connection writes its source. A host keeps writing
 * during a split, so on a WAL host the backup reads one snapshot instead: a read transaction held
 * on this connection across the steps (writers go on; the WAL is not checkpointed past it until
 * the backup ends). On a rollback-journal host such a read lock would block the host's writes for
 * the whole backup, so it is not held there: the backup restarts when the host writes, and after
 * MAX_BACKUP_RESTARTS it fails ("Conflict"); nothing has been changed yet, and a later run starts over.
 */
export async function steppedBackup(db: Db, target: string, steps: BackupSteps): Promise<void> {
  // Written under a name of its own and renamed once checked: a kill leaves a `.partial`, which the
  // next backup of the same file into the same folder removes (a whole copy: GBs at 1M messages).
  const partial = `${target}${PARTIAL}`;
  removePartials(path.dirname(target), `${path.basename(db.name)}.`);
  makePrivateDbFile(partial);
  try {
    await copyAndCheck(db, partial, steps);
    renameSync(partial, target);
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${partial}${suffix}`, { force: true });
  }
}

const PARTIAL = ".partial";

/** Backups of `prefix`… left half-made in `dir` by a killed process (only this module writes `.partial` files). */
function removePartials(dir: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no folder yet: nothing left over
  }
  for (const name of names)
    if (name.startsWith(prefix) && /\.partial(?:-wal|-shm|-journal)?$/.test(name))
      rmSync(path.join(dir, name), { force: true });
}

async function copyAndCheck(db: Db, target: string, steps: BackupSteps): Promise<void> {
  const snapshot = !db.inTransaction && String(db.pragma("journal_mode", { simple: true })) === "wal";
  if (snapshot) {
    db.exec("BEGIN");
    db.prepare("SELECT count(*) FROM sqlite_master").get(); // the read transaction starts here
  }
  let tables: string;
  try {
    await copyInSteps(db, target, steps);
    tables = tableNames(db);
  } finally {
    if (snapshot && db.inTransaction) db.exec("COMMIT");
  }
  const started = performance.now();
  const check = await quickCheckOffThread(target);
  steps.onCheck?.(performance.now() - started);
  if (check.result !== "ok")
    throw new RecallError("Internal", `backup ${target} failed its integrity check: ${check.result}`);
  if (check.tables !== tables)
    throw new RecallError("Internal", `backup ${target} does not hold the same tables`);
}

async function copyInSteps(db: Db, target: string, steps: BackupSteps): Promise<void> {
  let mark = performance.now();
  let cpuMark = threadCpuMs();
  let remaining = Infinity;
  let restarts = 0;
  let perPageMs: number | null = null;
  await db.backup(target, {
    progress: ({ totalPages, remainingPages }) => {
      const now = performance.now();
      const cpuMs = threadCpuMs() - cpuMark;
      const pages = remaining === Infinity ? totalPages - remainingPages : remaining - remainingPages;
      if (remainingPages > remaining && ++restarts > MAX_BACKUP_RESTARTS)
        throw new RecallError(
          "Conflict",
          `the host's database changed during each of ${MAX_BACKUP_RESTARTS} attempts at its backup; nothing was changed, try again when it writes less`,
        );
      remaining = remainingPages;
      steps.onStep?.({ wallMs: now - mark, cpuMs, pages: Math.max(0, pages) });
      if (pages > 0) {
        const cost = (now - mark) / pages;
        perPageMs = perPageMs === null ? cost : Math.max(cost, (perPageMs + cost) / 2);
      }
      mark = performance.now();
      cpuMark = threadCpuMs();
      const next = perPageMs === null ? MIN_PAGES : Math.floor(steps.budgetMs / Math.max(perPageMs, 1e-3));
      return Math.max(MIN_PAGES, Math.min(MAX_PAGES, next));
    },
  });
}

function tableNames(db: Db): string {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .join(",");
}

/**
 * The worker: better-sqlite3 loaded by its resolved path (a script given as a string, so the
 * bundled CLI needs no file of its own for it), quick_check and the table names of the copy.
 */
const CHECK_SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
try {
  const result = String(db.pragma("quick_check", { simple: true }));
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name).join(",");
  parentPort.postMessage({ result, tables });
} finally {
  db.close();
}`;

function quickCheckOffThread(file: string): Promise<{ result: string; tables: string }> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECK_SCRIPT, { eval: true, workerData: { driver, file } });
    let answered = false;
    worker.once("message", (m: { result: string; tables: string }) => {
      answered = true;
      resolve(m);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (!answered)
        reject(new RecallError("Internal", `the check of backup ${file} stopped (exit ${code})`));
    });
  });
}
