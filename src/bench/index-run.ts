/** The indexing runs worker-index.ts starts, each in a process of its own. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { systemClock } from "../core/clock.js";
import { ConfigSchema } from "../config/schema.js";
import { attachChatSearch } from "../app/attach-chat-search.js";
import { backfill } from "../indexer/backfill.js";
import { pipelineHandOver } from "../indexer/pipeline.js";
import { indexThread } from "../app/index-thread.js";
import {
  compileRedaction,
  DEFAULT_REDACTION,
  PROJECTION_VERSION,
  type Redaction,
} from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { openHistoryStore } from "../store/history-store.js";
import { storedTermRows } from "../store/term-stats.js";
import { openDatabase } from "../store/open.js";
import { runTermStatsJob } from "../app/term-stats-job.js";

export interface IndexRun {
  kind: "history" | "chats";
  wallMs: number;
  /** Migration (with its pre-migration backup) before indexing starts; chats only. */
  attachMs?: number;
  records: number;
  batches: number;
  /** The longest the indexer held the event loop: a bounded batch or (chats) a merge step. */
  longestBatchMs: number;
  /** Chats: the longest batch of one message over the byte bound (reported apart). */
  longestOversizedMs?: number;
  maxRssBytes: number;
  oversized?: number;
  documents?: number;
  /** History: the broker's idle job run to the end after the backfill (common terms' statistics). */
  termStatsMs?: number;
  termStats?: number;
  /** History: the backfill's CPU time (user and system), steadier than wall time on a busy machine. */
  cpuMs?: number;
  /** History: bytes the backfill had the disk fetch (not found in the OS page cache); Linux only. */
  diskReadBytes?: number;
  /** History with redaction on: time spent redacting, and how many projected texts it redacted. */
  redactMs?: number;
  redactedTexts?: number;
}

/**
 * Bytes this process (all its threads) has had the storage layer read: what it read past the OS
 * page cache. A first backfill of transcripts written a minute earlier can read much of them from
 * disk again where the kernel pages idle files out (this VM's DAMON does, after 60 s), which
 * costs wall and CPU time the same backfill on cached files does not pay. Null off Linux.
 */
function storageReadBytes(): number | null {
  try {
    const line = /^read_bytes:\s*(\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/** The built-in redaction, timed: every projected text goes through redact() once. */
function timedRedaction(): { redaction: Redaction; figures: { ms: number; texts: number } } {
  const figures = { ms: 0, texts: 0 };
  const redaction: Redaction = {
    ...DEFAULT_REDACTION,
    redact(text) {
      const t0 = performance.now();
      const out = DEFAULT_REDACTION.redact(text);
      figures.ms += performance.now() - t0;
      figures.texts += 1;
      return out;
    },
  };
  return { redaction, figures };
}

/**
 * `redact`: false indexes with redaction off (config.json redaction.enabled false), for its cost.
 * `threaded`: the sources read and their batches prepared on a second thread as `recall index`
 * does (app/index-thread.ts, indexer/pipeline.ts); redaction is timed only in one thread.
 */
export async function history(
  home: string,
  recallHome: string,
  redact: boolean,
  threaded: boolean,
): Promise<IndexRun> {
  const env = {
    HOME: home,
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
  };
  const config = ConfigSchema.parse(redact ? {} : { redaction: { enabled: false } });
  const store = await openHistoryStore({ home: recallHome, projectionVersion: PROJECTION_VERSION });
  const sources = createSources(env, config);
  const spec = threaded ? indexThread(env, config) : undefined;
  const timed = redact && !spec ? timedRedaction() : null;
  const cpu0 = process.cpuUsage();
  const disk0 = storageReadBytes();
  const t0 = performance.now();
  const result = backfill(store.db, sources, {
    projectionVersion: PROJECTION_VERSION,
    redaction: timed?.redaction ?? compileRedaction(config.redaction),
    clock: systemClock,
    deferReadIndexes: true, // as `recall index` does in the foreground
    ...(spec ? { handOver: pipelineHandOver(spec) } : {}),
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const disk1 = storageReadBytes();
  for (const s of sources) s.close?.();
  // What the broker does in its first idle cycles after a backfill, timed apart.
  const t1 = performance.now();
  // As `recall index` runs it, on two threads (cli/commands/index-command.ts).
  await runTermStatsJob(store.db);
  const termStats = storedTermRows(store.db).size;
  const termStatsMs = performance.now() - t1;
  const documents = (store.db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n;
  store.db.pragma("wal_checkpoint(TRUNCATE)");
  store.close();
  return {
    kind: "history",
    wallMs,
    records: result.records,
    batches: result.batches,
    longestBatchMs: result.longestBatchMs,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    oversized: result.counters.oversized,
    documents,
    termStatsMs,
    termStats,
    cpuMs: (cpu.user + cpu.system) / 1000,
    ...(disk0 !== null && disk1 !== null ? { diskReadBytes: disk1 - disk0 } : {}),
    ...(timed ? { redactMs: timed.figures.ms, redactedTexts: timed.figures.texts } : {}),
  };
}

export async function chats(dbFile: string, backupDir: string): Promise<IndexRun> {
  const db = openDatabase(dbFile);
  const a0 = performance.now();
  const search = await attachChatSearch(db, { file: dbFile, backupDir });
  const attachMs = performance.now() - a0;
  const t0 = performance.now();
  await search.indexer.drain();
  const wallMs = performance.now() - t0;
  const figures = search.indexer.figures();
  const documents = (db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n;
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return {
    kind: "chats",
    wallMs,
    attachMs,
    records: figures.indexed,
    batches: figures.batches,
    longestBatchMs: Math.max(figures.longestBatchMs, figures.longestMergeStepMs),
    longestOversizedMs: figures.longestOversizedMs,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    documents,
  };
}
