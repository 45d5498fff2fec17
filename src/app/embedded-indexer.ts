import { performance } from "node:perf_hooks";
import { DEFAULT_REDACTION, type Redaction } from "../projection/index.js";
import { mergeStep } from "../store/fts-merge.js";
import type { Db } from "../store/open.js";
import { checkpointOffThread, type Checkpointer } from "../store/wal-checkpointer.js";
import {
  backlogSize,
  DEFAULT_CHAT_BATCH,
  drainChatBatch,
  finishChatRebuild,
  hasPendingWork,
  prepareChatIndex,
  type ChatBatchLimits,
} from "../indexer/chat-queue.js";

/** Content-free figures for the host's telemetry: counts and durations only. */
export interface ChatIndexFigures {
  backlog: number;
  batches: number;
  indexed: number;
  removed: number;
  lastBatchMs: number;
  /** The longest batch of bounded size (rows and bytes). */
  longestBatchMs: number;
  /** A batch of one message larger than the byte bound, which no batch size can split. */
  longestOversizedMs: number;
  /** FTS5 segment merges, run as separate bounded steps between batches. */
  mergeSteps: number;
  longestMergeStepMs: number;
  /** Duration of the last run that drained the queue empty. */
  lastDrainMs: number;
  /**
   * Background drains that failed (a lock held past the busy timeout, a host schema change),
   * each retried after a backoff: the host process is never brought down by one.
   */
  failedDrains: number;
  rebuilding: boolean;
  running: boolean;
}

export interface ChatIndexerOptions {
  limits?: ChatBatchLimits;
  /** Delay after a settled message before draining, so bursts coalesce. */
  debounceMs?: number;
  /** Low-frequency repair poll for mutation paths that never call settled(). */
  repairIntervalMs?: number;
  /**
   * What secrets in messages and chat titles become (projection/redact/; compileRedaction turns
   * config.json-shaped settings into one). The built-in detectors when absent; other settings
   * than the index was written with rebuild it in the background.
   */
  redaction?: Redaction;
  /** A kill switch (RECALL_INDEXING=paused), asked before each batch: true drains nothing. */
  paused?: () => boolean;
  /** Runs at the end of each drain, inside it (the split's forwarding into history.db). */
  afterDrain?: () => Promise<void>;
}

export interface ChatSearchIndexer {
  /** Prepares the index (projection-version rebuild, orphan clean-up) and starts draining in the background. */
  start(): void;
  /** Stops timers and waits for a batch in progress. */
  stop(): Promise<void>;
  /** The host says a message has settled (finished streaming): index it soon. */
  settled(messageId?: number): void;
  /** Drains the queues to empty now, yielding between batches. */
  drain(): Promise<void>;
  /** Resolves true once idle, or false after at most `ms` (never starts work itself). */
  waitForIdle(ms: number): Promise<boolean>;
  /** Whether queued work concerns this app, ignoring the caller's own chat. */
  isPending(appId: number, excludeChatId: number | null): boolean;
  figures(): ChatIndexFigures;
}

const yieldToHost = () => new Promise<void>((resolve) => setImmediate(resolve));
/**
 * Batches a drain runs on the host's thread before it moves the WAL's checkpoints to a worker
 * (store/wal-checkpointer.ts) for the rest of the drain. The connection's automatic checkpoint
 * runs inside the commit or merge step that crosses 1,000 WAL pages, copying and syncing them:
 * those were the drain's longest steps (at 1M messages, batches of 54–78 ms and merge steps of
 * 36–66 ms against 25 ms otherwise). A drain of a few settled messages keeps the host's setting.
 */
const CHECKPOINTS_OFF_THREAD_AFTER = 16;
/** A failed background drain is retried after this, doubling up to the maximum. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export function createChatSearchIndexer(db: Db, options: ChatIndexerOptions = {}): ChatSearchIndexer {
  const limits = options.limits ?? DEFAULT_CHAT_BATCH;
  const redaction = options.redaction ?? DEFAULT_REDACTION;
  const debounceMs = options.debounceMs ?? 500;
  const repairIntervalMs = options.repairIntervalMs ?? 60_000;
  const figures: ChatIndexFigures = {
    backlog: 0,
    batches: 0,
    indexed: 0,
    removed: 0,
    lastBatchMs: 0,
    longestBatchMs: 0,
    longestOversizedMs: 0,
    mergeSteps: 0,
    longestMergeStepMs: 0,
    lastDrainMs: 0,
    failedDrains: 0,
    rebuilding: false,
    running: false,
  };
  let current: Promise<void> | null = null;
  let debounce: NodeJS.Timeout | null = null;
  let repair: NodeJS.Timeout | null = null;
  let stopped = false;
  const idleWaiters = new Set<() => void>();

  /** Merges the index's segments a bounded step at a time, yielding between steps. */
  const merge = async () => {
    for (;;) {
      if (stopped) return;
      const t0 = performance.now();
      const merged = mergeStep(db);
      figures.mergeSteps++;
      figures.longestMergeStepMs = Math.max(figures.longestMergeStepMs, performance.now() - t0);
      if (!merged) return;
      await yieldToHost();
    }
  };

  /** Whether start-up's repair (prepareChatIndex) has run since start(). */
  let prepared = true;

  const runDrain = async () => {
    const started = performance.now();
    figures.running = true;
    let batches = 0;
    let checkpoints: Checkpointer | null = null;
    try {
      if (!prepared) {
        figures.rebuilding = prepareChatIndex(db, redaction).rebuild;
        prepared = true;
      }
      for (;;) {
        if (stopped) return;
        if (options.paused?.()) break;
        const t0 = performance.now();
        const result = drainChatBatch(db, limits, redaction);
        const took = performance.now() - t0;
        figures.batches++;
        if (++batches === CHECKPOINTS_OFF_THREAD_AFTER) checkpoints = checkpointOffThread(db);
        figures.indexed += result.indexed;
        figures.removed += result.removed;
        figures.lastBatchMs = took;
        if (result.indexed + result.removed === 1 && result.bytes > limits.maxBytes)
          figures.longestOversizedMs = Math.max(figures.longestOversizedMs, took);
        else figures.longestBatchMs = Math.max(figures.longestBatchMs, took);
        await yieldToHost();
        if (result.indexed + result.removed > 0) await merge();
        if (!result.more) break;
      }
      // Term statistics a search built meanwhile saw documents still being rewritten. A rebuild
      // the host wrote into after the last batch stays one until a drain ends it: meanwhile the
      // batches leave term statistics alone (chat-queue.ts).
      if (figures.rebuilding && !options.paused?.()) figures.rebuilding = !finishChatRebuild(db);
      if (!stopped) await options.afterDrain?.();
      figures.lastDrainMs = performance.now() - started;
    } finally {
      await checkpoints?.stop();
      figures.running = false;
      figures.backlog = backlogSize(db);
    }
  };

  const drain = (): Promise<void> => {
    if (!current) {
      current = runDrain().finally(() => {
        current = null;
        for (const wake of idleWaiters) wake();
        idleWaiters.clear();
      });
    }
    return current;
  };

  /** Consecutive failed background drains, for the retry's backoff. */
  let failures = 0;
  /** A drain started by a timer: a failure is counted and retried, never thrown at the host. */
  const background = () => {
    drain().then(
      () => {
        failures = 0;
      },
      () => {
        figures.failedDrains++;
        failures++;
        schedule(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1)));
      },
    );
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      background();
    }, delay);
    debounce.unref();
  };

  return {
    start() {
      stopped = false;
      // A lock held past the busy timeout now is not thrown at the host's start-up: the first
      // background drain prepares instead, and retries until it can.
      try {
        figures.rebuilding = prepareChatIndex(db, redaction).rebuild;
        prepared = true;
      } catch {
        figures.failedDrains++;
        prepared = false;
      }
      schedule(0);
      repair = setInterval(background, repairIntervalMs);
      repair.unref();
    },
    async stop() {
      stopped = true;
      if (debounce) clearTimeout(debounce);
      if (repair) clearInterval(repair);
      debounce = repair = null;
      await current?.catch(() => {}); // a failure is the drain's caller's, or counted
    },
    settled() {
      schedule(debounceMs);
    },
    drain,
    waitForIdle(ms) {
      if (!current && !debounce) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          idleWaiters.delete(done);
          resolve(false);
        }, ms);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        idleWaiters.add(done);
      });
    },
    isPending(appId, excludeChatId) {
      return hasPendingWork(db, appId, excludeChatId);
    },
    figures: () => ({ ...figures, backlog: current ? figures.backlog : backlogSize(db) }),
  };
}
