import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { fig, round, type Figure } from "./measure.js";

export interface SplitFigures {
  documents: Figure;
  rows: Figure;
  /** Wall time of the `recall split` process, spawn to exit (its attach included). */
  wall: Figure;
  /** The split's own time (backup, copy, verification, switch) as it reports it. */
  total: Figure;
  /** The host's backup first (online backup in steps, then quick_check of the copy on a worker thread). */
  backup: Figure;
  /** Of which the check of the copy (off the host's thread). */
  backupCheck: Figure;
  /** Each phase's steps (backup, copy, merge, catch-up, verify, switch, trim): count, totals, the longest. */
  phases: Record<string, SplitPhaseFigures>;
  /** FTS5's merging on a worker thread: runs, their wall time, and the host's longest event-loop delay meanwhile. */
  mergeOffThread?: {
    runs: Figure;
    wall: Figure;
    transactions: Figure;
    hostCpu: Figure;
    longestLoopDelay: Figure;
  };
  batches: Figure;
  longestBatch: Figure;
  /** The same step's CPU time: a busy machine's other processes make wall time longer. */
  longestBatchCpu: Figure;
  peakRss: Figure;
  historyBytes: Figure;
  /** The 1-minute load average when the split started and when it ended (a busy machine stretches wall times). */
  loadBefore: Figure;
  loadAfter: Figure;
}

export interface SplitPhaseFigures {
  steps: Figure;
  wall: Figure;
  cpu: Figure;
  longest: Figure;
  longestCpu: Figure;
  /** Steps over 50 ms wall, over 25 ms CPU. */
  overWall: Figure;
  overCpu: Figure;
}

interface PhaseReport {
  steps: number;
  wallMs: number;
  cpuMs: number;
  longestMs: number;
  longestCpuMs: number;
  overWall?: number;
  overCpu?: number;
}

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const HOOK = new URL("./rss-hook.js", import.meta.url).href;
const MiB = 2 ** 20;

/**
 * The history.db split of an embedded index, as a host's operator runs it (`recall split`, a
 * process of its own so its peak RSS is the split's): the host's database is split in place.
 */
export function benchEmbeddedSplit(hostFile: string): SplitFigures {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing (run npm run build)`);
  const loadBefore = loadavg()[0]!;
  const t0 = performance.now();
  const run = spawnSync(process.execPath, ["--import", HOOK, CLI, "split", "--db", hostFile, "--json"], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    maxBuffer: 16 << 20,
  });
  const wall = performance.now() - t0;
  const loadAfter = loadavg()[0]!;
  if (run.status !== 0)
    throw new Error(`recall split exited ${run.status}: ${run.stderr.trim().split("\n")[0]}`);
  const report = JSON.parse(run.stdout) as {
    status: string;
    history: string;
    counts: Record<string, number>;
    totalMs: number;
    batches: number;
    longestBatchMs: number;
    longestBatchCpuMs: number;
    backupMs: number;
    backupCheckMs?: number;
    phases?: Record<string, PhaseReport>;
    merge?: {
      runs: number;
      wallMs: number;
      transactions: number;
      hostCpuMs: number;
      longestLoopDelayMs: number;
    };
    reason?: string;
  };
  if (report.status !== "switched")
    throw new Error(`the split did not switch: ${report.reason ?? report.status}`);
  const rss = /RECALL_BENCH_MAXRSS (\d+)/.exec(run.stderr);
  return {
    documents: fig(report.counts.recall_documents ?? 0, "documents"),
    rows: fig(
      Object.values(report.counts).reduce((a, b) => a + b, 0),
      "rows",
    ),
    wall: fig(round(wall / 1000, 1), "s"),
    total: fig(round(report.totalMs / 1000, 1), "s"),
    backup: fig(round(report.backupMs / 1000, 1), "s"),
    backupCheck: fig(round((report.backupCheckMs ?? 0) / 1000, 1), "s"),
    phases: Object.fromEntries(
      Object.entries(report.phases ?? {}).map(([name, p]) => [
        name,
        {
          steps: fig(p.steps, "steps"),
          wall: fig(round(p.wallMs / 1000, 1), "s"),
          cpu: fig(round(p.cpuMs / 1000, 1), "s"),
          longest: fig(round(p.longestMs, 1), "ms"),
          longestCpu: fig(round(p.longestCpuMs, 1), "ms"),
          overWall: fig(p.overWall ?? null, "steps"),
          overCpu: fig(p.overCpu ?? null, "steps"),
        },
      ]),
    ),
    mergeOffThread: report.merge && {
      runs: fig(report.merge.runs, "runs"),
      wall: fig(round(report.merge.wallMs / 1000, 1), "s"),
      transactions: fig(report.merge.transactions, "transactions"),
      hostCpu: fig(round(report.merge.hostCpuMs, 1), "ms"),
      longestLoopDelay: fig(round(report.merge.longestLoopDelayMs, 1), "ms"),
    },
    batches: fig(report.batches, "batches"),
    longestBatch: fig(round(report.longestBatchMs, 1), "ms"),
    longestBatchCpu: fig(round(report.longestBatchCpuMs, 1), "ms"),
    peakRss: fig(rss ? round(Number(rss[1]) / MiB, 1) : null, "MiB"),
    historyBytes: fig(round(statSync(report.history).size / MiB, 1), "MiB"),
    loadBefore: fig(round(loadBefore, 2), "runnable"),
    loadAfter: fig(round(loadAfter, 2), "runnable"),
  };
}
