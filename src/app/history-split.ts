import { createHash, type Hash } from "node:crypto";
import { existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { RecallError } from "../core/errors.js";
import { EMBEDDED_MIGRATIONS } from "../store/embedded-schema.js";
import { chooseEngine, type Engine } from "../store/fts-probe.js";
import { mergeStep } from "../store/fts-merge.js";
import {
  applyLogStep,
  copyStep,
  dumpRows,
  ftsRowsAfter,
  historyDbV1,
  HISTORY_DB_VERSIONS,
  LEGACY,
  lastLoggedSeq,
  openSplitTarget,
  pendingLog,
  recordedPhase,
  setSplitMeta,
  splitMeta,
  splitTables,
  switchStep,
} from "../store/history-split.js";
import { backupDatabase, backupStamp, currentVersion, migrate } from "../store/migrate.js";
import { openDatabase, type Db } from "../store/open.js";
import { hasSplitLog, installSplitLog, removeSplitLog, trimSplitLog } from "../store/split-log.js";
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
  /** Bounds on one step: at most maxRows rows, and rows halved while a step takes over half of maxMs. */
  maxRows?: number;
  maxMs?: number;
  /** Called between steps (tests: sample readers, corrupt a row, abort by throwing). */
  onStep?: (step: SplitStep) => void | Promise<void>;
  switches?: () => SplitSwitches;
  probe?: () => boolean;
  clock?: () => number;
}

export interface SplitStep {
  phase: "copy" | "merge" | "catch-up" | "copied" | "verify" | "switch";
  batch: number;
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
  batches: number;
  longestBatchMs: number;
  /**
   * The longest step in CPU time: what a step costs the host's thread, apart from the time a
   * busy machine runs other processes in the middle of one (wall time above includes that).
   */
  longestBatchCpuMs: number;
  /**
   * The host's backup, before the first step: SQLite's online backup (in steps) and the shared
   * executor's check of the copy (quick_check: one call, which a step bound does not cover).
   */
  backupMs: number;
  /** The longest step of each phase. */
  longestByPhase: Partial<Record<SplitStep["phase"], number>>;
  totalMs: number;
}

export const SPLIT_DEFAULTS = { maxRows: 2_000, maxMs: 50 } as const;

/** history.db's default place: beside the host's database, named after it. */
export function defaultHistoryFile(hostFile: string): string {
  return path.join(path.dirname(hostFile), `${path.parse(hostFile).name}.history.db`);
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Stops a split between steps when RECALL_SPLIT=off is set meanwhile. */
class SplitOff extends Error {}

export async function runSplit(options: SplitOptions): Promise<SplitReport> {
  const started = performance.now();
  const switches = options.switches ?? (() => splitSwitches());
  const clock = options.clock ?? Date.now;
  const to = path.resolve(options.to ?? defaultHistoryFile(options.hostFile));
  const maxRows = options.maxRows ?? SPLIT_DEFAULTS.maxRows;
  const maxMs = options.maxMs ?? SPLIT_DEFAULTS.maxMs;
  const report: SplitReport = {
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
    longestByPhase: {},
    totalMs: 0,
  };
  const finish = (r: SplitReport) => ({ ...r, totalMs: performance.now() - started });
  if (switches().splitOff) return finish(report);

  // Rows per step adapt so a step stays near a fifth of the bound (a row's size varies by table),
  // leaving room for a busy machine's stalls under the bound itself.
  let rows = Math.min(maxRows, 100);
  const step = async <T>(phase: SplitStep["phase"], work: (rows: number) => T): Promise<T> => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const result = work(rows);
    const took = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    report.longestBatchCpuMs = Math.max(report.longestBatchCpuMs, (cpu.user + cpu.system) / 1000);
    report.batches++;
    report.longestBatchMs = Math.max(report.longestBatchMs, took);
    report.longestByPhase[phase] = Math.max(report.longestByPhase[phase] ?? 0, took);
    if (took > maxMs / 5) rows = Math.max(1, Math.floor(rows / 2));
    else if (took < maxMs / 10) rows = Math.min(maxRows, Math.ceil(rows * 1.25));
    await options.onStep?.({ phase, batch: report.batches });
    if (switches().splitOff) throw new SplitOff();
    await yieldNow();
    return result;
  };

  const host = openDatabase(options.hostFile, { keepJournalMode: true });
  let target: Db | null = null;
  try {
    let phase = recordedPhase(to);
    if (phase === "switched") {
      target = openSplitTarget(to, options.hostFile);
      return finish({ ...report, ...verified(target), status: "switched" });
    }
    // A split whose log is gone (removed after a failure) cannot be resumed: it starts again.
    if (phase !== null && !hasSplitLog(host)) phase = null;
    if (phase === null) {
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
      await backupDatabase(host, report.backup);
      report.backupMs = performance.now() - backupStarted;
      installSplitLog(host);
      target = openSplitTarget(to, options.hostFile);
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
    } else target = openSplitTarget(to, options.hostFile);
    const db = target;
    report.backup = splitMeta(db, "backup") ?? null;
    report.engine = (splitMeta(db, "engine") as Engine | undefined) ?? null;

    for (;;) {
      const copied = await step("copy", (n) => {
        const done = copyStep(db, n);
        if (done !== null) applyLogStep(db, n);
        return done;
      });
      if (copied === null) break;
      // FTS5 merges its segments only in these bounded steps (store/fts-merge.ts), never inside a copy step.
      if (copied.table === "recall_documents" && copied.rows > 0)
        while (await step("merge", () => mergeStep(db)));
    }
    while (pendingLog(db, rows + 1) > rows) await step("catch-up", (n) => applyLogStep(db, n));
    await options.onStep?.({ phase: "copied", batch: report.batches });

    const check = await verify(db, step);
    if (check.reason !== undefined) {
      setSplitMeta(db, "phase", "failed");
      setSplitMeta(db, "failure", check.reason);
      db.close();
      target = null;
      const kept = `${to}.failed-${backupStamp(clock())}`;
      renameSync(to, kept);
      for (const suffix of ["-wal", "-shm"])
        if (existsSync(to + suffix)) renameSync(to + suffix, kept + suffix);
      removeSplitLog(host);
      return finish({ ...report, status: "failed", reason: check.reason, kept });
    }
    while (!(await step("switch", (n) => switchStep(db, n))))
      await step("catch-up", (n) => applyLogStep(db, n));
    trimSplitLog(db, Number(splitMeta(db, "applied_seq")), LEGACY);
    return finish({ ...report, ...verified(db), status: "switched" });
  } catch (error) {
    if (error instanceof SplitOff) return finish(report);
    throw error;
  } finally {
    target?.close();
    host.close();
  }
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

type Step = <T>(phase: SplitStep["phase"], work: (rows: number) => T) => Promise<T>;

/**
 * One value of a row in the canonical dump: its type and exact value (integers are BigInt,
 * blobs hex), so no two different rows serialize alike.
 */
function canonical(value: unknown): string {
  if (value === null) return "n";
  if (typeof value === "bigint") return `i${value}`;
  if (typeof value === "number") return `r${value}`;
  if (typeof value === "string") return `s${value.length}:${value}`;
  if (Buffer.isBuffer(value)) return `b${value.toString("hex")}`;
  throw new RecallError("Internal", `unexpected SQLite value of type ${typeof value}`);
}

/** Counts and hashes one table in one schema, a bounded step at a time; `after` is the last rowid taken. */
async function dumpTable(db: Db, schema: "main" | typeof LEGACY, table: string, step: Step) {
  const hash: Hash = createHash("sha256");
  let count = 0;
  let after = 0n;
  for (;;) {
    const more = await step("verify", (n) => {
      const got = dumpRows(db, schema, table, after, n);
      for (const row of got) hash.update(`${row.map(canonical).join("\u001f")}\n`);
      count += got.length;
      if (got.length > 0) after = got.at(-1)![0] as bigint;
      return got.length > 0;
    });
    if (!more) break;
  }
  return { count, sha256: hash.digest("hex") };
}

/**
 * Verification over one snapshot of both files (a read transaction held across yields; a WAL
 * host keeps writing meanwhile): the log up to the snapshot is applied, then each table's count
 * and hash must be the legacy's, and every copied document must be in history.db's FTS5 index.
 * Recorded with the time when they all agree; else the first difference, in one line.
 */
async function verify(db: Db, step: Step): Promise<{ reason?: string }> {
  db.exec("BEGIN");
  try {
    const through = lastLoggedSeq(db);
    while ((await step("verify", (n) => applyLogStep(db, n, through))) > 0);
    const counts: Record<string, number> = {};
    const hashes: Record<string, string> = {};
    for (const { name } of splitTables(db)) {
      const legacy = await dumpTable(db, LEGACY, name, step);
      const copy = await dumpTable(db, "main", name, step);
      if (legacy.count !== copy.count) {
        db.exec("ROLLBACK");
        return {
          reason: `${name}: ${copy.count} rows in history.db against ${legacy.count} in the legacy table`,
        };
      }
      if (legacy.sha256 !== copy.sha256) {
        db.exec("ROLLBACK");
        return {
          reason: `${name}: the SHA-256 of history.db's rows differs from the legacy table's (${copy.sha256.slice(0, 12)} against ${legacy.sha256.slice(0, 12)})`,
        };
      }
      counts[name] = legacy.count;
      hashes[name] = legacy.sha256;
    }
    let indexed = 0;
    let last = 0;
    for (;;) {
      const got = await step("verify", (n) => ftsRowsAfter(db, last, n));
      if (got.last === null) break;
      indexed += got.n;
      last = got.last;
    }
    if (indexed !== counts.recall_documents) {
      db.exec("ROLLBACK");
      return {
        reason: `recall_fts: ${indexed} documents indexed in history.db against ${counts.recall_documents ?? 0}`,
      };
    }
    setSplitMeta(db, "verified_counts", JSON.stringify(counts));
    setSplitMeta(db, "verified_hashes", JSON.stringify(hashes));
    setSplitMeta(db, "verified_at", new Date().toISOString());
    db.exec("COMMIT");
    return {};
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
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
      const applied = applyLogStep(db, rows);
      if (applied > 0 && trim) trimSplitLog(db, Number(splitMeta(db, "applied_seq")), LEGACY);
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
