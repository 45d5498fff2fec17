import { existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { RecallError } from "../core/errors.js";
import { threadCpuMs } from "../platform/thread-cpu.js";
import { EMBEDDED_MIGRATIONS, legacyDropped } from "../store/embedded-schema.js";
import { chooseEngine, type Engine } from "../store/fts-probe.js";
import { COPY_CRISIS_MERGE, ftsSegments, setCrisisMerge } from "../store/fts-merge.js";
import { mergeOffThread } from "../store/fts-merge-worker.js";
import {
  applyLogStep,
  copyStep,
  historyDbV1,
  HISTORY_DB_VERSIONS,
  LEGACY,
  lastLoggedSeq,
  LOG_KEY,
  openSplitTarget,
  pendingLog,
  recordedPhase,
  type SplitPhase,
  setSplitMeta,
  splitMeta,
  switchStep,
  type Pace,
} from "../store/history-split.js";
import { backupDatabase, backupStamp, currentVersion, migrate } from "../store/migrate.js";
import { openDatabase, type Db } from "../store/open.js";
import { checkpointOffThread, type Checkpointer } from "../store/wal-checkpointer.js";
import { hasSplitLog, installSplitLog, removeSplitLog, trimSplitLog } from "../store/split-log.js";
import { StepPace } from "./split-pace.js";
import { verifySplit } from "./split-verify.js";
import { splitSwitches, type SplitSwitches } from "./split-switches.js";

/**
 * The history.db split of an embedded index (DESIGN.md's mapping of the history spec): a
 * verified backup of the host's database, a change log on recall's legacy tables, a bounded
 * copy of every table into a new history.db, the log applied over it, then verification
 * (row counts and a SHA-256 of each table's canonical dump, legacy against new, over one
 * snapshot of both) and the switch under a short write lock on the host. Every step is one
 * transaction with its cursor, so a kill anywhere resumes from the last committed step.
 *
 * Writes during the split are the log's: the indexer keeps writing the legacy tables as before
 * and the host's triggers keep filling the queues; each change is logged and copied again, and
 * the last entries are applied under the write lock that makes the switch. After it the log
 * stays: the indexer forwards what it and the host's triggers write (createForwarder), so the
 * legacy tables stay whole for RECALL_SPLIT_READ=legacy and a later --drop-legacy.
 */

export interface SplitOptions {
  /** The host's database file. */
  hostFile: string;
  /** history.db's path (default: beside the host's database, defaultHistoryFile). */
  to?: string;
  /** Where the host's backup goes (default: the host file's .recall-backups folder, as attach's). */
  backupDir?: string;
  /**
   * Bounds on one step: at most maxRows rows, and chunks of rows taken until a fifth of maxMs is
   * spent (app/split-pace.ts), which leaves the rest of maxMs for the commit and a busy machine.
   */
  maxRows?: number;
  maxMs?: number;
  /** Called between steps (tests: sample readers, corrupt a row, abort by throwing). */
  onStep?: (step: SplitStep) => void | Promise<void>;
  /** Segments in history.db's FTS5 index at which the copy pauses to merge (default SPLIT_MAX_SEGMENTS; tests: fewer). */
  maxSegments?: number;
  switches?: () => SplitSwitches;
  probe?: () => boolean;
  clock?: () => number;
}

export type SplitPhaseName = "backup" | "copy" | "merge" | "catch-up" | "verify" | "switch" | "trim";

export interface SplitStep {
  phase: Exclude<SplitPhaseName, "backup"> | "copied";
  batch: number;
}

/** One phase's steps: how many, their wall and CPU time in all, the longest of each, and how many went over. */
export interface PhaseFigures {
  steps: number;
  wallMs: number;
  cpuMs: number;
  longestMs: number;
  longestCpuMs: number;
  /** Steps over the 50 ms bound in wall time, and over 25 ms (half of it) in CPU time. */
  overWall: number;
  overCpu: number;
}

export interface SplitReport {
  status: "switched" | "failed" | "off";
  history: string;
  backup: string | null;
  engine: Engine | null;
  counts: Record<string, number>;
  hashes: Record<string, string>;
  verifiedAt: string | null;
  /** Why verification failed, in one line; and where the half-made history.db was kept. */
  reason?: string;
  kept?: string;
  /** Steps after the backup (each one onStep call). */
  batches: number;
  /** The longest step of any phase, the backup's included, in wall and in CPU time. */
  longestBatchMs: number;
  /**
   * The longest step in CPU time: what a step costs the host's thread, apart from the time a
   * busy machine runs other processes in the middle of one (wall time above includes that).
   */
  longestBatchCpuMs: number;
  /** The host's backup, before the first step: its steps and its check (off the host's thread). */
  backupMs: number;
  backupCheckMs: number;
  /** Each phase's steps (backup steps: upper bounds, each includes its event-loop turn). */
  phases: Partial<Record<SplitPhaseName, PhaseFigures>>;
  /** FTS5's merging, on a worker thread (phases.merge holds the host thread's share: spawning it). */
  merge: OffThreadMerge;
  totalMs: number;
}

export interface OffThreadMerge {
  /** Worker runs: one after the copy, and one each time the copy reached maxSegments. */
  runs: number;
  /** Their wall time in all, and their transactions ('merge' commands that wrote segments). */
  wallMs: number;
  transactions: number;
  /**
   * The host's thread meanwhile: its CPU time (spawning the workers included), and the longest its
   * event loop waited (waits for a CPU on a busy machine included: a timer's lateness).
   */
  hostCpuMs: number;
  longestLoopDelayMs: number;
}

/**
 * Segments at which the copy pauses for an off-thread merge: FTS5 holds at most 2,000 in all, and
 * a copy step of documents flushes several (about 10 at 1M messages: the copy paused 8–10 times).
 */
export const SPLIT_MAX_SEGMENTS = 1000;

export const SPLIT_DEFAULTS = { maxRows: 2_000, maxMs: 50 } as const;

/** history.db's default place: beside the host's database, named after it. */
export function defaultHistoryFile(hostFile: string): string {
  return path.join(path.dirname(hostFile), `${path.parse(hostFile).name}.history.db`);
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Stops a split between steps when RECALL_SPLIT=off is set meanwhile. */
class SplitOff extends Error {}

function emptyReport(to: string): SplitReport {
  return {
    status: "off",
    history: to,
    backup: null,
    engine: null,
    counts: {},
    hashes: {},
    verifiedAt: null,
    batches: 0,
    longestBatchMs: 0,
    longestBatchCpuMs: 0,
    backupMs: 0,
    backupCheckMs: 0,
    phases: {},
    merge: { runs: 0, wallMs: 0, transactions: 0, hostCpuMs: 0, longestLoopDelayMs: 0 },
    totalMs: 0,
  };
}

/** Adds one step's times to its phase's figures and to the longest of all. */
export function recordStep(report: SplitReport, phase: SplitPhaseName, wallMs: number, cpuMs: number): void {
  const f = (report.phases[phase] ??= {
    steps: 0,
    wallMs: 0,
    cpuMs: 0,
    longestMs: 0,
    longestCpuMs: 0,
    overWall: 0,
    overCpu: 0,
  });
  f.steps++;
  if (wallMs > SPLIT_DEFAULTS.maxMs) f.overWall++;
  if (cpuMs > SPLIT_DEFAULTS.maxMs / 2) f.overCpu++;
  f.wallMs += wallMs;
  f.cpuMs += cpuMs;
  f.longestMs = Math.max(f.longestMs, wallMs);
  f.longestCpuMs = Math.max(f.longestCpuMs, cpuMs);
  report.longestBatchMs = Math.max(report.longestBatchMs, wallMs);
  report.longestBatchCpuMs = Math.max(report.longestBatchCpuMs, cpuMs);
}

export async function runSplit(options: SplitOptions): Promise<SplitReport> {
  const started = performance.now();
  const switches = options.switches ?? (() => splitSwitches());
  const clock = options.clock ?? Date.now;
  const to = path.resolve(options.to ?? defaultHistoryFile(options.hostFile));
  const maxMs = options.maxMs ?? SPLIT_DEFAULTS.maxMs;
  const report = emptyReport(to);
  const finish = (r: SplitReport) => ({ ...r, totalMs: performance.now() - started });
  if (switches().splitOff) return finish(report);

  const pace = new StepPace(maxMs / 5, options.maxRows ?? SPLIT_DEFAULTS.maxRows);
  const step: Stepper = async (phase, work) => {
    const t0 = performance.now();
    const cpu0 = threadCpuMs();
    const result = work(pace.begin(phase));
    pace.end(performance.now() - t0);
    recordStep(report, phase, performance.now() - t0, threadCpuMs() - cpu0);
    report.batches++;
    await options.onStep?.({ phase, batch: report.batches });
    if (switches().splitOff) throw new SplitOff();
    await yieldNow();
    return result;
  };

  const host = openDatabase(options.hostFile, { keepJournalMode: true });
  let target: Db | null = null;
  let checkpointer: Checkpointer | null = null;
  try {
    const phase = recordedPhase(to);
    if (phase === "switched") {
      target = openSplitTarget(to, options.hostFile);
      return finish({ ...report, ...verified(target), status: "switched" });
    }
    target = await openOrBegin(host, to, phase, options, report, maxMs, clock);
    const db = target;
    // Checkpoints off the host's thread while the split writes (store/wal-checkpointer.ts).
    checkpointer = checkpointOffThread(db);
    report.backup = splitMeta(db, "backup") ?? null;
    report.engine = (splitMeta(db, "engine") as Engine | undefined) ?? null;

    const merge = async (last: boolean) => {
      await mergeFts(to, report, last);
      report.batches++;
      await options.onStep?.({ phase: "merge", batch: report.batches });
      if (switches().splitOff) throw new SplitOff();
    };
    await copyAll(db, step, pace, merge, options.maxSegments ?? SPLIT_MAX_SEGMENTS);
    await options.onStep?.({ phase: "copied", batch: report.batches });

    const check = await verifySplit(db, step);
    if (check.reason !== undefined) {
      await checkpointer?.stop();
      checkpointer = null;
      target = null;
      const kept = keepFailed(db, host, to, check.reason, clock);
      return finish({ ...report, status: "failed", reason: check.reason, kept });
    }
    while (!(await step("switch", () => switchStep(db, pace.fits(LOG_KEY)))))
      await step("catch-up", (p) => applyLogStep(db, p));
    const through = Number(splitMeta(db, "applied_seq"));
    const trim = (p: Pace) => {
      const n = p.rows("trim");
      const gone = trimSplitLog(db, through, LEGACY, n);
      p.took("trim", gone);
      return gone;
    };
    while ((await step("trim", trim)) > 0);
    return finish({ ...report, ...verified(db), status: "switched" });
  } catch (error) {
    if (error instanceof SplitOff) return finish(report);
    throw error;
  } finally {
    await checkpointer?.stop();
    target?.close();
    host.close();
  }
}

type Stepper = <T>(phase: SplitStep["phase"] & SplitPhaseName, work: (pace: Pace) => T) => Promise<T>;

/**
 * The copy, table by table, each step applying the log after it when time is left; FTS5's
 * merging off the host's thread after it (and meanwhile if the segments reach `maxSegments`);
 * then the log caught up.
 */
async function copyAll(
  db: Db,
  step: Stepper,
  pace: StepPace,
  merge: (last: boolean) => Promise<void>,
  maxSegments: number,
): Promise<void> {
  // No copy step merges: no automerge (the bounded policy), and no crisis merge below the cap.
  setCrisisMerge(db, COPY_CRISIS_MERGE);
  for (;;) {
    const copied = await step("copy", (p) => {
      const done = copyStep(db, p);
      if (done !== null && !p.spent()) applyLogStep(db, p);
      return done && { ...done, segments: done.table === "recall_documents" ? ftsSegments(db) : 0 };
    });
    if (copied === null) break;
    if (copied.segments >= maxSegments) await merge(false);
  }
  // Nothing else writes history.db until the switch: readers and the forwarder wait for it.
  await merge(true);
  while (pendingLog(db, pace.fits(LOG_KEY) + 1) > pace.fits(LOG_KEY))
    await step("catch-up", (p) => applyLogStep(db, p));
}

/**
 * One off-thread merge (store/fts-merge-worker.ts): the host's thread spawns the worker, recorded
 * as the phase's step, and awaits it with its event loop free; the loop's delays are measured.
 */
async function mergeFts(file: string, report: SplitReport, last: boolean): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const t0 = performance.now();
  const cpu0 = threadCpuMs();
  // crisismerge back to the bounded policy's only after the copy: 64 during it would merge in a copy step.
  const running = mergeOffThread(file, last ? {} : { crisisMerge: null });
  recordStep(report, "merge", performance.now() - t0, threadCpuMs() - cpu0);
  try {
    const done = await running;
    report.merge.runs++;
    report.merge.wallMs += done.wallMs;
    report.merge.transactions += done.transactions;
  } finally {
    report.merge.hostCpuMs += threadCpuMs() - cpu0;
    delay.disable();
    report.merge.longestLoopDelayMs = Math.max(report.merge.longestLoopDelayMs, delay.max / 1e6);
  }
}

/** A failed verification: recorded, history.db closed and kept aside, the host's log removed. Returns where it is. */
function keepFailed(db: Db, host: Db, to: string, reason: string, clock: () => number): string {
  setSplitMeta(db, "phase", "failed");
  setSplitMeta(db, "failure", reason);
  db.close();
  const kept = `${to}.failed-${backupStamp(clock())}`;
  renameSync(to, kept);
  for (const suffix of ["-wal", "-shm"]) if (existsSync(to + suffix)) renameSync(to + suffix, kept + suffix);
  removeSplitLog(host);
  return kept;
}

/** history.db to resume, or a new split begun (also when the log of one is gone: removed after a failure). */
async function openOrBegin(
  host: Db,
  to: string,
  phase: SplitPhase | null,
  options: SplitOptions,
  report: SplitReport,
  maxMs: number,
  clock: () => number,
): Promise<Db> {
  if (legacyDropped(host))
    throw new RecallError(
      "Conflict",
      `${options.hostFile}'s legacy tables were dropped but ${to} is not a switched history.db: restore it, or the host from its drop-legacy backup`,
    );
  if (phase !== null && hasSplitLog(host)) return openSplitTarget(to, options.hostFile);
  return beginSplit(host, to, options, report, maxMs, clock);
}

/**
 * A split's start: the host's protected backup in bounded steps (the shared executor's, with its
 * check), the change log on the host, and history.db made by its own migration.
 */
async function beginSplit(
  host: Db,
  to: string,
  options: SplitOptions,
  report: SplitReport,
  maxMs: number,
  clock: () => number,
): Promise<Db> {
  const latest = EMBEDDED_MIGRATIONS.at(-1)!.version;
  if (currentVersion(host) !== latest)
    throw new RecallError(
      "Validation",
      `${options.hostFile} holds no current embedded index (schema ${currentVersion(host)}, not ${latest}); attach chat search to it first`,
    );
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${to}${suffix}`, { force: true });
  const backupDir = options.backupDir ?? `${options.hostFile}.recall-backups`;
  report.backup = path.join(
    backupDir,
    `${path.basename(options.hostFile)}.split.${backupStamp(clock())}.bak`,
  );
  const backupStarted = performance.now();
  await backupDatabase(host, report.backup, {
    budgetMs: maxMs / 5,
    onStep: (s) => recordStep(report, "backup", s.wallMs, s.cpuMs),
    onCheck: (ms) => (report.backupCheckMs = ms),
  });
  report.backupMs = performance.now() - backupStarted;
  installSplitLog(host);
  const target = openSplitTarget(to, options.hostFile);
  await migrate({
    db: target,
    file: to,
    migrations: [historyDbV1],
    context: {
      engine: chooseEngine(undefined, options.probe),
      appliedSeq: lastLoggedSeq(target),
      backup: report.backup,
      at: clock(),
    },
    backupDir: path.dirname(to),
    versionTable: HISTORY_DB_VERSIONS,
  });
  return target;
}

function verified(db: Db): Pick<SplitReport, "counts" | "hashes" | "verifiedAt" | "backup" | "engine"> {
  return {
    counts: JSON.parse(splitMeta(db, "verified_counts") ?? "{}") as Record<string, number>,
    hashes: JSON.parse(splitMeta(db, "verified_hashes") ?? "{}") as Record<string, string>,
    verifiedAt: splitMeta(db, "verified_at") ?? null,
    backup: splitMeta(db, "backup") ?? null,
    engine: (splitMeta(db, "engine") as Engine | undefined) ?? null,
  };
}

/**
 * After the switch: applies what the log holds to history.db, a bounded step at a time, and
 * trims what was applied. One connection, opened on first use.
 */
export interface Forwarder {
  /**
   * Applies at most `rows` logged changes; returns how many. `trim` also deletes the applied
   * entries from the host's log (a write on the host: the indexer's drains do it, not readers).
   */
  step(rows: number, trim?: boolean): number;
  close(): void;
}

export function createForwarder(hostFile: string, to: string): Forwarder {
  let db: Db | null = null;
  return {
    step(rows, trim = true) {
      db ??= openSplitTarget(to, hostFile);
      // At most `rows` entries and the split's step time (a reader forwards on the host's thread before it reads).
      const applied = applyLogStep(db, new StepPace(SPLIT_DEFAULTS.maxMs / 5, rows).begin("forward"));
      // Also when nothing was applied: entries a killed split left applied and untrimmed go, a bounded few at a time.
      if (trim) trimSplitLog(db, Number(splitMeta(db, "applied_seq") ?? 0), LEGACY, rows);
      return applied;
    },
    close() {
      db?.close();
      db = null;
    },
  };
}

/** Whether history.db at `to` has been verified and switched to. */
export function isSwitched(to: string): boolean {
  return recordedPhase(to) === "switched";
}
