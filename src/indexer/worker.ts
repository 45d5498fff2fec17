import { performance } from "node:perf_hooks";
import { systemClock, type Clock } from "../core/clock.js";
import { errorKind, RecallError } from "../core/errors.js";
import { DEFAULT_REDACTION, type Redaction } from "../projection/index.js";
import type { Source } from "../sources/types.js";
import { writeCoverage, type PublishedCoverage, type PublishedSource } from "../store/coverage-row.js";
import { asDamagedIndex } from "../store/damage.js";
import type { Db } from "../store/open.js";
import { noteDocumentsRewritten } from "../store/rewrites.js";
import { statement } from "../store/statements.js";
import {
  addResults,
  backfillYielding,
  committedBefore,
  runTick,
  TICK_CADENCE,
  type BackfillProgress,
  type BackfillResult,
  type BatchLimits,
  type SourceTick,
} from "./backfill.js";
import {
  checkDerivedVersions,
  noteDerivedVersions,
  writtenByNewer,
  type Staleness,
} from "./derived-versions.js";
import { IndexingThreadError, pipelineHandOver, type PipelineSpec } from "./pipeline.js";
import { resetDerivedYielding } from "./rebuild.js";
import { redactKeptText } from "./redact-kept.js";

/** A source whose batch failed is recreated from its committed checkpoints at most this often. */
export const RESTART_FAILED_SOURCE_MS = 30_000;
/** The writer republishes coverage at least this often while it runs (a heartbeat). */
export const COVERAGE_HEARTBEAT_MS = 5_000;
/**
 * A change a source's filesystem watch reports brings the next cycle this close (never closer
 * than the backlog cadence after the last one): the events of one write burst make one cycle.
 */
export const WATCH_DEBOUNCE_MS = 250;
/** indexedThrough is recomputed at most this often per source (a scan of its conversations). */
const THROUGH_REFRESH_MS = 2_000;

const THROUGH = "SELECT max(updated_at) AS at FROM recall_conversations WHERE source = ?";

/**
 * Follows the ticks and publishes coverage — per source: work waiting, newest record time
 * indexed, backlog — as one recall_meta row, so every search reads it without counting.
 */
export class CoverageTracker {
  private readonly sources = new Map<string, PublishedSource>();
  private readonly throughAt = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private lastPublished = "";
  private lastPublishedAt = -Infinity;
  rebuilding = false;
  lastRun: PublishedCoverage["lastRun"] = null;

  constructor(
    private readonly db: Db,
    private readonly writer: PublishedCoverage["writer"],
    private readonly clock: Clock = systemClock,
  ) {}

  /** Starts over for these sources (a new set after a reindex, or the first tick). */
  reset(names: readonly string[]): void {
    this.sources.clear();
    this.throughAt.clear();
    this.dirty.clear();
    for (const name of names) {
      this.sources.set(name, {
        source: name,
        indexing: true,
        indexedThrough: this.through(name),
        backlog: 0,
        backlogBytes: 0,
        filesKnown: 0,
        discovered: false,
      });
    }
  }

  private through(source: string): number | null {
    this.throughAt.set(source, performance.now());
    return (statement(this.db, THROUGH).get(source) as { at: number | null }).at;
  }

  observe(tick: SourceTick): void {
    const entry = this.sources.get(tick.source) ?? {
      source: tick.source,
      indexing: true,
      indexedThrough: null,
      backlog: 0,
      backlogBytes: 0,
      filesKnown: 0,
      discovered: false,
    };
    const p = tick.progress;
    entry.backlog = p?.backlogFiles ?? 0;
    entry.backlogBytes = p?.backlogBytes ?? 0;
    entry.filesKnown = p?.filesKnown ?? entry.filesKnown;
    entry.discovered = p ? p.discovered : true;
    if (p?.unreadable) entry.unreadable = p.unreadable;
    else delete entry.unreadable;
    entry.indexing = !tick.idle || !entry.discovered || entry.backlog > 0;
    // New records: refresh the newest indexed time once the source caught up, or at most every
    // couple of seconds while it works through a backlog (a scan of its conversations).
    if (tick.records > 0) this.dirty.add(tick.source);
    const last = this.throughAt.get(tick.source) ?? -Infinity;
    if (
      !this.throughAt.has(tick.source) ||
      (this.dirty.has(tick.source) && (!entry.indexing || performance.now() - last > THROUGH_REFRESH_MS))
    ) {
      entry.indexedThrough = this.through(tick.source);
      this.dirty.delete(tick.source);
    }
    this.sources.set(tick.source, entry);
  }

  /** Marks every source caught up as of now (after a catch-up finished) and refreshes their times. */
  settle(): void {
    for (const entry of this.sources.values()) entry.indexedThrough = this.through(entry.source);
    this.dirty.clear();
  }

  snapshot(): PublishedCoverage {
    return {
      v: 1,
      publishedAt: this.clock.now(),
      writer: this.writer,
      pid: process.pid,
      rebuilding: this.rebuilding,
      lastRun: this.lastRun,
      sources: [...this.sources.values()].map((s) => ({ ...s })),
    };
  }

  /** Writes the coverage row when it changed, or as a heartbeat; `force` always writes. */
  publish(force = false): void {
    const snapshot = this.snapshot();
    const key = JSON.stringify({ ...snapshot, publishedAt: 0 });
    const due = performance.now() - this.lastPublishedAt >= COVERAGE_HEARTBEAT_MS;
    if (!force && !due && key === this.lastPublished) return;
    writeCoverage(this.db, snapshot);
    this.lastPublished = key;
    this.lastPublishedAt = performance.now();
  }
}

export interface WorkerOptions {
  /** A writable connection of the index (the broker's own). */
  db: Db;
  /** Builds the sources; called at start and again after a reindex resets their cursors. */
  createSources: () => Source[];
  projectionVersion: number;
  /**
   * What secrets become in every text written (config.json `redaction`; the built-in detectors
   * when absent). Other settings than the index was written with rebuild it at start.
   */
  redaction?: Redaction;
  clock?: Clock;
  rawMaxBytesPerSource?: number | null;
  cadence?: { idleMs: number; backlogMs: number };
  limits?: Partial<BatchLimits>;
  /** Ticks committed together by a catch-up (default YIELDING_GROUP; a foreground command may group more). */
  group?: { records: number; millis: number };
  writer?: PublishedCoverage["writer"];
  /** Content-free log lines (counts, durations, error kinds); never text of any record. */
  log?: (line: string) => void;
  /**
   * Bounded work for idle cycles, when no source has anything waiting (the broker's FTS5 upkeep
   * and term statistics); the loop awaits it before its next cycle, which comes at the backlog's
   * pace when it answers true (more of it is due), else at the idle one.
   */
  onIdle?: () => boolean | Promise<boolean>;
  /**
   * What createSources is built from, as plain data: a catch-up (and a reindex's) with more than
   * a group of work reads and prepares its batches on another thread (pipeline.ts).
   */
  pipeline?: PipelineSpec;
}

export interface WorkProgress {
  phase: "reset" | "indexing";
  /** Documents removed (reset) or records written (indexing) so far. */
  done: number;
  doneBytes: number;
  backlogBytes: number;
}

export interface ReindexResult {
  reset: { documents: number; checkpoints: number };
  index: BackfillResult;
}

export interface WorkerFigures {
  running: boolean;
  cycles: number;
  records: number;
  errors: number;
  lastCycleMs: number;
  longestCycleMs: number;
  startedAt: number | null;
}

export interface IndexWorker {
  /**
   * Starts the background loop: a bounded batch per source, then 100 ms (backlog) or 2 s (idle),
   * or WATCH_DEBOUNCE_MS after a source's filesystem watch reports a change (Source.watch).
   */
  start(): void;
  /** Stops the loop and waits for the batch in progress. */
  stop(): Promise<void>;
  /** Bounded batches back to back (yielding between them) until every source is idle. */
  catchUp(onProgress?: (p: WorkProgress) => void): Promise<BackfillResult>;
  /**
   * Resets derived documents, file registrations and cursors of the worker's sources (keeping
   * retained records, raw chunks, session aliases and tombstones), then catches up.
   */
  reindex(onProgress?: (p: WorkProgress) => void): Promise<ReindexResult>;
  figures(): WorkerFigures;
  sourceNames(): string[];
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

const progressOf = (p: BackfillProgress): WorkProgress => ({
  phase: "indexing",
  done: p.totalRecords,
  doneBytes: p.doneBytes,
  backlogBytes: p.backlogBytes,
});

/**
 * The broker's indexing loop. Each cycle runs one bounded batch per source (each in its own
 * transaction) and yields to the event loop between sources, so the thread it runs on answers
 * requests (the broker's local channel, an embedding host's) between batches; then it sleeps 100 ms while any source has backlog,
 * else 2 s. Catch-up and reindex take the same lock as a cycle, so batches never overlap.
 */
export function createIndexWorker(options: WorkerOptions): IndexWorker {
  const clock = options.clock ?? systemClock;
  const redaction = options.redaction ?? DEFAULT_REDACTION;
  const cadence = options.cadence ?? TICK_CADENCE;
  const log = options.log ?? (() => {});
  const tracker = new CoverageTracker(options.db, options.writer ?? "broker", clock);
  const figures: WorkerFigures = {
    running: false,
    cycles: 0,
    records: 0,
    errors: 0,
    lastCycleMs: 0,
    longestCycleMs: 0,
    startedAt: null,
  };
  let sources: Source[] | null = null;
  let stopped = true;
  /** stop() was called: a catch-up in progress ends after its current group. */
  let closing = false;
  let loopDone: Promise<void> | null = null;
  let sleeper: { wake: () => void; hurry: () => void } | null = null;
  /** A watch reported a change since the current cycle began. */
  let nudged = false;
  const watchHooks = {
    changed: () => {
      nudged = true;
      sleeper?.hurry();
    },
    log,
  };
  /** Sources told to watch their folders: the background loop's sources only, never a foreground run's. */
  const watching = new WeakSet<Source>();
  /** Serialises cycles, catch-ups and reindexes. */
  let lock: Promise<unknown> = Promise.resolve();

  const withLock = <T>(work: () => Promise<T>): Promise<T> => {
    const run = lock.then(work, work);
    lock = run.catch(() => {});
    return run;
  };

  /**
   * Sources whose batch failed after they had moved on in memory (a file taken off the backlog,
   * a cursor advanced): each is replaced by a fresh instance that starts from the committed
   * checkpoints, at most once per RESTART_FAILED_SOURCE_MS, so one that fails every time costs
   * one re-discovery per interval, not one per cycle. The others keep their state and figures.
   */
  const failedSources = new Set<string>();
  const restartedAt = new Map<string, number>();
  const ensureSources = (): Source[] => {
    if (!sources) {
      sources = options.createSources();
      tracker.reset(sources.map((s) => s.name));
      failedSources.clear();
    }
    const now = performance.now();
    const due = [...failedSources].filter(
      (name) => !(now - (restartedAt.get(name) ?? -Infinity) < RESTART_FAILED_SOURCE_MS),
    );
    if (due.length > 0) {
      const fresh = options.createSources();
      sources = sources.map((source) => {
        if (!due.includes(source.name)) return source;
        source.close?.();
        return fresh.find((f) => f.name === source.name) ?? source;
      });
      for (const f of fresh) if (!sources.includes(f)) f.close?.();
      for (const name of due) {
        failedSources.delete(name);
        restartedAt.set(name, now);
      }
    }
    if (!stopped) {
      for (const source of sources) {
        if (watching.has(source)) continue;
        watching.add(source);
        source.watch?.(watchHooks);
      }
    }
    return sources;
  };

  const tickOptions = () => ({
    projectionVersion: options.projectionVersion,
    clock,
    rawMaxBytesPerSource: options.rawMaxBytesPerSource ?? null,
    limits: options.limits,
    redaction,
  });

  /**
   * The background loop's current run: from the first cycle that wrote records to the cycle that
   * found every source idle. Its figures become `lastRun`, as a foreground catch-up's do.
   */
  let stretch: { started: number; records: number; batches: number } | null = null;

  /** Logged once per run of the loop: a newer recall took over the index (see writtenByNewer). */
  let refusedNewer = false;

  /** One background cycle; returns whether any source still has work. */
  const cycle = async (): Promise<boolean> => {
    const newer = writtenByNewer(options.db, options.projectionVersion);
    if (newer) {
      if (!refusedNewer) log(newer);
      refusedNewer = true;
      figures.cycles += 1;
      return false;
    }
    refusedNewer = false;
    nudged = false;
    const started = performance.now();
    let busy = false;
    for (const source of ensureSources()) {
      if (stopped) break;
      try {
        const [tick] = runTick(options.db, [source], tickOptions());
        if (tick) {
          tracker.observe(tick);
          figures.records += tick.records;
          if (!tick.idle) busy = true;
          if (tick.records > 0) {
            stretch ??= { started, records: 0, batches: 0 };
            stretch.records += tick.records;
            stretch.batches += 1;
          }
        }
      } catch (error) {
        // One failing source (a locked or damaged file, a busy index) never stalls the others.
        // Its batch rolled back, but it had already moved on in memory (a file taken off the
        // backlog, a cursor advanced): ensureSources replaces it with a fresh one.
        figures.errors += 1;
        // A damaged index is said as every surface says it (store/damage.ts), not as a bare code.
        const damaged = asDamagedIndex(error, options.db.name);
        log(`${source.name}: batch failed (${damaged ? damaged.message : errorKind(error)}); retrying`);
        failedSources.add(source.name);
      }
      await yieldNow();
    }
    if (!busy && stretch && !stopped) {
      tracker.lastRun = {
        records: stretch.records,
        batches: stretch.batches,
        ms: Math.round(performance.now() - stretch.started),
        finishedAt: clock.now(),
      };
      stretch = null;
    }
    tracker.publish();
    const took = performance.now() - started;
    figures.cycles += 1;
    figures.lastCycleMs = took;
    figures.longestCycleMs = Math.max(figures.longestCycleMs, took);
    return busy;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const began = performance.now();
      let until = began + ms;
      const wake = () => {
        clearTimeout(timer);
        sleeper = null;
        resolve();
      };
      let timer = setTimeout(wake, ms);
      // A watched change shortens the sleep (once: later events never postpone the cycle).
      const hurry = () => {
        const at = Math.max(began + cadence.backlogMs, performance.now() + WATCH_DEBOUNCE_MS);
        if (at >= until) return;
        until = at;
        clearTimeout(timer);
        timer = setTimeout(wake, at - performance.now());
      };
      sleeper = { wake, hurry };
      if (nudged) hurry();
    });

  const loop = async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = await withLock(cycle);
      } catch (error) {
        figures.errors += 1;
        log(`indexing batch failed (${errorKind(error)}); retrying`);
      }
      if (stopped) break;
      let more = false;
      if (!busy && options.onIdle) {
        try {
          more = await withLock(async () => options.onIdle!());
        } catch (error) {
          figures.errors += 1;
          log(`idle work failed (${errorKind(error)})`);
        }
      }
      await sleep(busy || more ? cadence.backlogMs : cadence.idleMs);
    }
  };

  /** One backfill over the sources, its reading handed to the pipeline's thread where `threaded`. */
  const backfillOnce = async (
    onProgress: ((p: WorkProgress) => void) | undefined,
    rebuilding: boolean,
    threaded: boolean,
  ): Promise<BackfillResult> => {
    /** The pipeline's thread read on from this process's sources, whose positions are now behind. */
    let handedOver = false;
    const pipeline = threaded && options.pipeline ? pipelineHandOver(options.pipeline) : null;
    try {
      return await backfillYielding(options.db, ensureSources(), {
        ...tickOptions(),
        textInPlace: rebuilding, // its end drops every term statistic anyway
        ...(options.group ? { group: options.group } : {}),
        deferReadIndexes: options.writer === "foreground",
        onProgress: onProgress ? (p) => onProgress(progressOf(p)) : undefined,
        onTick: (ticks) => {
          for (const tick of ticks) tracker.observe(tick);
        },
        onGroupEnd: () => tracker.publish(),
        shouldStop: () => closing,
        ...(pipeline
          ? {
              handOver: (db, o, inThread) => {
                const producer = pipeline(db, o, inThread);
                handedOver ||= producer !== null;
                return producer;
              },
            }
          : {}),
      });
    } catch (error) {
      // As after a failed cycle: the group rolled back, whichever source's batch failed.
      for (const source of sources ?? []) failedSources.add(source.name);
      throw error;
    } finally {
      if (handedOver) {
        for (const source of sources ?? []) source.close?.();
        sources = null;
      }
    }
  };

  const catchUpLocked = async (
    onProgress?: (p: WorkProgress) => void,
    rebuilding = false,
  ): Promise<BackfillResult> => {
    const started = performance.now();
    let result: BackfillResult;
    try {
      result = await backfillOnce(onProgress, rebuilding, true);
    } catch (error) {
      if (!(error instanceof IndexingThreadError)) throw error;
      // Its uncommitted group rolled back; what committed stays, and counts in this run. Fresh
      // sources resume from the committed checkpoints in this thread: slower, never a failed
      // command.
      figures.errors += 1;
      log(`the indexing thread failed (${error.kind}); going on in one thread`);
      const before = committedBefore(error);
      const after = await backfillOnce(onProgress, rebuilding, false);
      result = before ? addResults(before, after) : after;
    }
    figures.records += result.records;
    tracker.lastRun = {
      records: result.records,
      batches: result.batches,
      ms: Math.round(performance.now() - started),
      finishedAt: clock.now(),
    };
    tracker.settle();
    tracker.publish(true);
    return result;
  };

  /**
   * A rebuild re-reads every source from the start. "readers" keeps every document, for the
   * re-read to rewrite or supersede. "projection" (and `recall reindex`) deletes first the
   * documents of sources that keep no history of their own (chat databases, the bridge), whose
   * re-read would not notice what was deleted meanwhile; a transcript source's documents are
   * rewritten as they are re-read, so they stay searchable meanwhile, and those whose file and
   * retained bytes are both gone are kept, as retention promises; their text (and any other
   * text the re-read did not rewrite) is then redacted where it is (redact-kept.ts), so no text
   * written under other redaction settings outlives the rebuild.
   */
  const reindexLocked = async (
    onProgress?: (p: WorkProgress) => void,
    scope: Exclude<Staleness, null> = "projection",
  ): Promise<ReindexResult> => {
    const all = ensureSources();
    const names = all.map((s) => s.name);
    const deleteFirst = scope === "readers" ? [] : all.filter((s) => !s.retainsHistory).map((s) => s.name);
    tracker.rebuilding = true;
    tracker.publish(true);
    try {
      noteDocumentsRewritten(options.db);
      // Sources keep in-memory positions that assume the cursors being reset: start afresh.
      for (const source of sources ?? []) source.close?.();
      sources = null;
      const reset = await resetDerivedYielding(
        options.db,
        names,
        deleteFirst,
        (documents) => {
          tracker.publish(); // a heartbeat: a long reset is not taken for a dead writer
          onProgress?.({ phase: "reset", done: documents, doneBytes: 0, backlogBytes: 0 });
        },
        () => closing,
      );
      log(`reindex: reset ${reset.documents} documents and ${reset.checkpoints} cursors`);
      ensureSources();
      const index = await catchUpLocked(onProgress, true);
      const kept =
        scope === "readers"
          ? { rewritten: 0, complete: true }
          : await redactKeptText(
              options.db,
              redaction,
              () => tracker.publish(),
              () => closing,
            );
      if (kept.rewritten > 0) log(`reindex: redacted ${kept.rewritten} texts the re-read did not rewrite`);
      if (!closing && kept.complete) noteDerivedVersions(options.db, options.projectionVersion, redaction);
      return { reset, index };
    } finally {
      try {
        // Statistics built meanwhile (the idle job, a search) saw documents still being rewritten.
        noteDocumentsRewritten(options.db);
      } catch (error) {
        log(`reindex: could not drop term statistics (${errorKind(error)})`);
      }
      tracker.rebuilding = false;
      tracker.publish(true);
    }
  };

  const refuseNewer = () => {
    const newer = writtenByNewer(options.db, options.projectionVersion);
    if (newer) throw new RecallError("SchemaTooNew", newer);
  };

  /** Rebuilt before anything else when another projection or readers version built the index. */
  const derivedStale = (): Staleness =>
    checkDerivedVersions(options.db, options.projectionVersion, redaction);

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      closing = false;
      figures.running = true;
      figures.startedAt = clock.now();
      ensureSources();
      loopDone = (async () => {
        try {
          const stale = writtenByNewer(options.db, options.projectionVersion) ? null : derivedStale();
          if (stale) await withLock(() => reindexLocked(undefined, stale));
        } catch (error) {
          figures.errors += 1;
          log(
            `rebuild for a new projection or reader failed (${errorKind(error)}); retrying at the next start`,
          );
        }
        await loop();
      })();
    },
    async stop() {
      stopped = true;
      closing = true;
      sleeper?.wake();
      await loopDone;
      await lock;
      loopDone = null;
      figures.running = false;
      for (const source of sources ?? []) source.close?.();
      sources = null;
    },
    catchUp(onProgress) {
      return withLock(async () => {
        refuseNewer();
        const stale = derivedStale();
        return stale ? (await reindexLocked(onProgress, stale)).index : catchUpLocked(onProgress);
      });
    },
    reindex(onProgress) {
      return withLock(async () => {
        refuseNewer();
        return reindexLocked(onProgress);
      });
    },
    figures: () => ({ ...figures }),
    sourceNames: () => ensureSources().map((s) => s.name),
  };
}
