import { performance } from "node:perf_hooks";
import type { Clock } from "../core/clock.js";
import type { Db } from "../store/open.js";
import { beginFirstLoad, isEmptyIndex, type FirstLoad } from "../store/first-load.js";
import { dropReadIndexesIfEmpty, ensureReadIndexes, forgetIndexState } from "../store/read-indexes.js";
import type { Redaction } from "../projection/index.js";
import type { Budget, Source, SourceBatch, SourceCounters, SourceProgress } from "../sources/types.js";
import { indexView } from "./checkpoints.js";
import { noteReadersVersion, noteRedactionFingerprint } from "./derived-versions.js";
import { ftsGroup } from "./fts-queue.js";
import { ingestBatch } from "./ingest.js";
import { restoreHeapLimits } from "../core/heap.js";

/**
 * Per-batch bounds shared by the background worker and a foreground backfill: records, bytes
 * and milliseconds per batch, and the spec's per-tick discovery bounds (32 filesystem entries,
 * 32 opencode session rows, 2 registered files polled).
 */
export const BATCH_LIMITS = {
  maxRecords: 1000,
  maxBytes: 2 * 1024 * 1024,
  maxMillis: 250,
  maxEntries: 32,
  maxSessionRows: 32,
  maxFiles: 2,
} as const;

/** The worker's cadence: idle ticks every 2 s, backlog ticks every 100 ms. */
export const TICK_CADENCE = { idleMs: 2000, backlogMs: 100 } as const;

export type BatchLimits = { [K in keyof typeof BATCH_LIMITS]: number };

export interface TickOptions {
  /** A foreground backfill: sources skip cadence throttles other than new-file discovery. */
  thorough?: boolean;
  projectionVersion: number;
  clock: Clock;
  /** config retention.rawMaxBytesPerSource. */
  rawMaxBytesPerSource?: number | null;
  /** A rebuild: changed texts keep their rowids (IngestOptions.textInPlace). */
  textInPlace?: boolean;
  limits?: Partial<BatchLimits>;
  /** What secrets become (IngestOptions.redaction); the built-in detectors when absent. */
  redaction?: Redaction;
}

export interface SourceTick {
  source: string;
  records: number;
  documents: number;
  idle: boolean;
  progress: SourceProgress | null;
  counters: SourceCounters;
  rawBytes: number;
  ms: number;
}

/** One source's budget for one batch, its time counted from `started` (performance.now()). */
export function batchBudget(limits: BatchLimits, now: number, started: number, thorough: boolean): Budget {
  return {
    maxRecords: limits.maxRecords,
    maxBytes: limits.maxBytes,
    maxEntries: limits.maxEntries,
    maxSessionRows: limits.maxSessionRows,
    maxFiles: limits.maxFiles,
    now,
    expired: () => performance.now() - started > limits.maxMillis,
    thorough,
  };
}

/** How a tick's batch is written (ingest.ts), from the tick's options. */
export function writeOptions(source: string, options: TickOptions) {
  return {
    source,
    projectionVersion: options.projectionVersion,
    now: options.clock.now(),
    rawMaxBytesPerSource: options.rawMaxBytesPerSource ?? null,
    textInPlace: options.textInPlace ?? false,
    redaction: options.redaction,
  };
}

/** A source's tick figures once its batch is written. */
export function sourceTick(
  source: string,
  batch: Pick<SourceBatch, "idle" | "progress" | "counters">,
  written: { records: number; documents: number; rawBytes: number },
  ms: number,
): SourceTick {
  return {
    source,
    records: written.records,
    documents: written.documents,
    idle: batch.idle,
    progress: batch.progress,
    counters: batch.counters,
    rawBytes: written.rawBytes,
    ms,
  };
}

/** One tick: one bounded batch from every source, each committed in its own transaction. */
export function runTick(db: Db, sources: readonly Source[], options: TickOptions): SourceTick[] {
  const view = indexView(db);
  const limits = { ...BATCH_LIMITS, ...options.limits };
  const out: SourceTick[] = [];
  for (const source of sources) {
    const started = performance.now();
    const budget = batchBudget(limits, options.clock.now(), started, options.thorough ?? false);
    const batch = source.nextBatch(view, budget);
    const ingested = ingestBatch(db, batch, writeOptions(source.name, options));
    out.push(sourceTick(source.name, batch, ingested, performance.now() - started));
  }
  return out;
}

export interface BackfillProgress {
  source: string;
  /** Records written for this source so far. */
  records: number;
  batches: number;
  /** Records written for every source so far. */
  totalRecords: number;
  /** Bytes (or rows) read so far, and what the sources know is still waiting. */
  doneBytes: number;
  backlogBytes: number;
}

export interface SourceSummary {
  records: number;
  documents: number;
  batches: number;
  files: number;
  counters: SourceCounters;
  rawBytes: number;
}

export interface BackfillResult {
  records: number;
  batches: number;
  ticks: number;
  longestBatchMs: number;
  counters: SourceCounters;
  sources: Record<string, SourceSummary>;
}

export interface BackfillOptions extends TickOptions {
  onProgress?: (p: BackfillProgress) => void;
  /** Stop early (Ctrl-C, a test's cap). */
  shouldStop?: () => boolean;
  /**
   * Consecutive ticks committed together, up to this many records or milliseconds (default
   * 5000 records / 500 ms; 0 commits every batch on its own, as the background worker does).
   * Each tick keeps its bounds; a first backfill of thousands of small files then pays for
   * one commit per group instead of one per two-file batch.
   */
  group?: { records: number; millis: number };
  /**
   * A safety valve: stop once every source has reported idle continuously for this long even
   * if one never completes a clean polling sweep (default 30 s).
   */
  maxIdleMillis?: number;
  /** Sees every tick's figures (the worker's coverage tracker). */
  onTick?: (ticks: SourceTick[]) => void;
  /** Runs last inside each group's transaction (publishing coverage with the group's commit). */
  onGroupEnd?: () => void;
  /**
   * A foreground first backfill: when the index is still empty, build the read-only secondary
   * indexes once at the end instead of row by row (store/read-indexes.ts), and write without
   * fsyncs until then (store/first-load.ts). Not for a process serving requests: the build
   * holds the connection for seconds at a million documents.
   */
  deferReadIndexes?: boolean;
  /**
   * Hands the ticks over to another producer after the first group if the backfill is not done
   * by then (pipeline.ts: the sources read and the batches prepared on another thread). A
   * backlog one group clears never pays for a thread's start-up.
   */
  handOver?: ProducerSwitch;
}

export const BACKFILL_GROUP = { records: 5000, millis: 500 } as const;

/**
 * A source that has finished its part of a backfill (idle, its closing sweep done) is polled
 * again only this often while another source still has work: at 100k messages the idle polls
 * of finished sources (a bridge store's stats, an opencode data_version check) took 0.4 s of a
 * 10.4 s backfill. Once every polled source is idle, the next tick polls them all.
 */
export const QUIET_SOURCE_POLL_MS = 250;

/** A backfill run one group at a time: the synchronous and the yielding drivers share it. */
export interface BackfillRun {
  /** Runs one group of ticks (one transaction); returns true once the backfill is finished. */
  step(): boolean;
  readonly result: BackfillResult;
  readonly finished: boolean;
}

/** What a tick reports that decides the backfill's course. */
export type TickOutcome = Pick<SourceTick, "source" | "idle" | "progress">;

/**
 * Which sources the next backfill tick polls, and when the backfill is done: every source
 * reported idle in one tick and has completed one more clean polling sweep than when the
 * backfill started. Pure, so the pipeline's thread (index-thread.ts) runs it beside its sources.
 */
export class TickPlan {
  /** Clean polling sweeps each source had completed when this backfill started. */
  private readonly sweepsAtStart = new Map<string, number>();
  /** Sources done with their part, and when each is polled next (QUIET_SOURCE_POLL_MS). */
  private readonly quietUntil = new Map<string, number>();
  private idleSince: number | null = null;
  private tickStart = 0;
  private polledAll = true;
  finished = false;

  constructor(
    private readonly names: readonly string[],
    private readonly maxIdle: number,
  ) {}

  /** The sources the next tick polls. */
  polled(): Set<string> {
    this.tickStart = performance.now();
    const polled = new Set(
      this.names.filter((n) => !((this.quietUntil.get(n) ?? -Infinity) > this.tickStart)),
    );
    this.polledAll = polled.size === this.names.length;
    return polled;
  }

  /** Takes in the tick's outcomes; sets `finished`. */
  observe(ticks: readonly TickOutcome[]): void {
    // A tick that skipped a source cannot end the backfill: it never saw that source idle.
    let idle = this.polledAll;
    for (const tick of ticks) {
      const sweeps = tick.progress?.cleanSweeps ?? 0;
      if (!this.sweepsAtStart.has(tick.source)) this.sweepsAtStart.set(tick.source, sweeps);
      const sourceDone =
        tick.idle && (tick.progress === null || sweeps > this.sweepsAtStart.get(tick.source)!);
      if (!sourceDone) idle = false;
      if (sourceDone) this.quietUntil.set(tick.source, this.tickStart + QUIET_SOURCE_POLL_MS);
      else this.quietUntil.delete(tick.source);
    }
    if (idle) this.finished = true;
    // Every polled source idle: the next tick polls the quiet ones too.
    const allIdle = ticks.every((t) => t.idle);
    if (allIdle) this.quietUntil.clear();
    if (!allIdle) this.idleSince = null;
    else if (this.idleSince === null) this.idleSince = performance.now();
    else if (performance.now() - this.idleSince > this.maxIdle) this.finished = true;
  }
}

/**
 * Where a backfill's ticks come from: this thread's sources (runTick), or the pipeline's thread
 * (pipeline.ts), whose prepared batches next() writes. Either way each tick is written by the
 * time next() returns, inside the caller's group transaction.
 */
export interface TickProducer {
  /**
   * The next tick, written; null when the group should commit now (nothing ready before
   * `deadline`, or the producer waits for a commit).
   */
  next(deadline: number): { ticks: SourceTick[]; finished: boolean } | null;
  /** The group holding every tick next() returned so far has committed. */
  committed?(): void;
  /** Ends the producer (the backfill is done, stopped or failed). */
  close?(): void;
}

/** Ticks of this thread's sources, read and written here. */
export function inThreadTicks(db: Db, sources: readonly Source[], options: BackfillOptions): TickProducer {
  const plan = new TickPlan(
    sources.map((s) => s.name),
    options.maxIdleMillis ?? 30_000,
  );
  return {
    next() {
      const polled = plan.polled();
      const ticks = runTick(
        db,
        sources.filter((s) => polled.has(s.name)),
        { ...options, thorough: true },
      );
      plan.observe(ticks);
      return { ticks, finished: plan.finished };
    },
  };
}

/**
 * Builds the ticks' producer once the first group has committed without finishing (a backlog
 * worth a thread's start-up): the pipeline (pipeline.ts), which goes back to `inThread` if its
 * thread fails before handing anything over. Null keeps the in-thread producer.
 */
export type ProducerSwitch = (
  db: Db,
  options: BackfillOptions,
  inThread: TickProducer,
) => TickProducer | null;

/** What a failed backfill had committed when it failed, by its error (see committedBefore). */
const committedAtFailure = new WeakMap<object, BackfillResult>();

/**
 * The counts of what a backfill had committed before it threw `error` (its last group rolled
 * back): a run that goes on after the failure adds them to its own. Undefined for other errors.
 */
export function committedBefore(error: unknown): BackfillResult | undefined {
  return typeof error === "object" && error !== null ? committedAtFailure.get(error) : undefined;
}

/** Two runs' counts as one: the second went on from where the first had committed. */
export function addResults(a: BackfillResult, b: BackfillResult): BackfillResult {
  const sources: Record<string, SourceSummary> = structuredClone(a.sources);
  for (const [name, s] of Object.entries(b.sources)) {
    const t = sources[name];
    sources[name] = t
      ? {
          records: t.records + s.records,
          documents: t.documents + s.documents,
          batches: t.batches + s.batches,
          files: Math.max(t.files, s.files),
          counters: sumCounters(t.counters, s.counters),
          rawBytes: t.rawBytes + s.rawBytes,
        }
      : structuredClone(s);
  }
  return {
    records: a.records + b.records,
    batches: a.batches + b.batches,
    ticks: a.ticks + b.ticks,
    longestBatchMs: Math.max(a.longestBatchMs, b.longestBatchMs),
    counters: sumCounters(a.counters, b.counters),
    sources,
  };
}

function sumCounters(a: SourceCounters, b: SourceCounters): SourceCounters {
  return {
    oversized: a.oversized + b.oversized,
    malformed: a.malformed + b.malformed,
    skipped: a.skipped + b.skipped,
  };
}

/**
 * The state machine of a backfill: bounded ticks back to back (thorough: no cadence
 * throttles other than new-file discovery) until every source reports idle in one tick and
 * has completed one more clean polling sweep than when the backfill started (TickPlan).
 */
export function startBackfill(db: Db, sources: readonly Source[], options: BackfillOptions): BackfillRun {
  const result: BackfillResult = {
    records: 0,
    batches: 0,
    ticks: 0,
    longestBatchMs: 0,
    counters: { oversized: 0, malformed: 0, skipped: 0 },
    sources: {},
  };
  for (const source of sources) {
    result.sources[source.name] = {
      records: 0,
      documents: 0,
      batches: 0,
      files: 0,
      counters: { oversized: 0, malformed: 0, skipped: 0 },
      rawBytes: 0,
    };
  }
  const done = new Map<string, number>();
  const backlog = new Map<string, number>();
  const group = options.group ?? BACKFILL_GROUP;
  let producer = inThreadTicks(db, sources, options);
  const handOver = options.handOver;
  let switchable = handOver !== undefined && group.records > 0;
  let finished = false;
  const empty = isEmptyIndex(db);
  // Whatever drives it (the worker, a benchmark, a test): records written now are this build's.
  if (empty) {
    noteReadersVersion(db);
    noteRedactionFingerprint(db, options.redaction);
  }
  const firstLoad: FirstLoad | null = options.deferReadIndexes === true && empty ? beginFirstLoad(db) : null;
  let deferred = options.deferReadIndexes === true && dropReadIndexesIfEmpty(db);
  /** Takes one tick from the producer; false when it had none ready before `deadline`. */
  const oneTick = (deadline: number): boolean => {
    const next = producer.next(deadline);
    if (next === null) return false;
    const { ticks } = next;
    result.ticks += 1;
    for (const tick of ticks) {
      const summary = result.sources[tick.source]!;
      summary.records += tick.records;
      summary.documents += tick.documents;
      summary.batches += 1;
      summary.rawBytes += tick.rawBytes;
      summary.files = tick.progress?.filesKnown ?? summary.files;
      for (const key of ["oversized", "malformed", "skipped"] as const) {
        summary.counters[key] += tick.counters[key];
        result.counters[key] += tick.counters[key];
      }
      result.records += tick.records;
      result.batches += 1;
      result.longestBatchMs = Math.max(result.longestBatchMs, tick.ms);
      done.set(tick.source, tick.progress?.doneBytes ?? 0);
      backlog.set(tick.source, tick.progress?.backlogBytes ?? 0);
      options.onProgress?.({
        source: tick.source,
        records: summary.records,
        batches: summary.batches,
        totalRecords: result.records,
        doneBytes: sum(done),
        backlogBytes: sum(backlog),
      });
    }
    options.onTick?.(ticks);
    if (next.finished) finished = true;
    return true;
  };
  const end = (): true => {
    producer.close?.();
    if (deferred) ensureReadIndexes(db);
    deferred = false;
    firstLoad?.end();
    return true;
  };
  /** The counts as of the last commit (ticks outside a group commit each batch themselves). */
  let committed = structuredClone(result);
  const step = (): boolean => {
    try {
      const ended = groupStep();
      committed = structuredClone(result);
      return ended;
    } catch (error) {
      if (typeof error === "object" && error !== null) committedAtFailure.set(error, committed);
      producer.close?.();
      // The connection goes on serving (the worker retries): back to the usual durability.
      firstLoad?.end();
      forgetIndexState(db);
      throw error;
    }
  };
  const groupStep = (): boolean => {
    if (finished || options.shouldStop?.()) return end();
    if (group.records <= 0) {
      oneTick(Infinity);
      options.onGroupEnd?.();
      return finished && end();
    }
    // Ticks grouped in one transaction: each batch's ingest joins it (no nested savepoint), and
    // the sources read the group's uncommitted checkpoints through this same connection. A
    // failure rolls the whole group back; sources then resume from the committed checkpoints.
    const started = performance.now();
    const before = result.records;
    db.transaction(() =>
      ftsGroup(db, () => {
        while (
          oneTick(started + group.millis) &&
          !finished &&
          result.records - before < group.records &&
          performance.now() - started < group.millis &&
          !options.shouldStop?.()
        );
        options.onGroupEnd?.();
      }),
    )();
    producer.committed?.();
    restoreHeapLimits();
    if (finished) return end();
    if (switchable) {
      switchable = false;
      const next = handOver!(db, { ...options, group }, producer);
      if (next) producer = next;
    }
    return false;
  };
  return {
    step,
    result,
    get finished() {
      return finished;
    },
  };
}

/**
 * Runs the same bounded ticks as the background worker back to back, without the idle sleep,
 * until every source reports idle in one tick (discovery done, nothing waiting, a complete
 * polling sweep found nothing): the first backfill of `recall index` and `npm start`.
 */
export function backfill(db: Db, sources: readonly Source[], options: BackfillOptions): BackfillResult {
  const run = startBackfill(db, sources, options);
  while (!run.step());
  return run.result;
}

/** Groups a yielding backfill commits at most, so a process serving requests stays responsive. */
export const YIELDING_GROUP = { records: 2000, millis: 100 } as const;

/**
 * The same backfill, yielding to the event loop between groups of ticks: the broker's worker
 * runs it (catch-up, reindex) while it keeps answering MCP requests and its local channel.
 */
export async function backfillYielding(
  db: Db,
  sources: readonly Source[],
  options: BackfillOptions,
): Promise<BackfillResult> {
  const run = startBackfill(db, sources, { group: YIELDING_GROUP, ...options });
  while (!run.step()) await new Promise<void>((resolve) => setImmediate(resolve));
  return run.result;
}

function sum(map: Map<string, number>): number {
  let n = 0;
  for (const v of map.values()) n += v;
  return n;
}
