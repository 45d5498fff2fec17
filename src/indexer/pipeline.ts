import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { Env } from "../platform/paths.js";
import { threadEntry } from "../platform/thread-entry.js";
import type { Config } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import { errorKind } from "../core/errors.js";
import { compileRedaction, DEFAULT_REDACTION } from "../projection/index.js";
import type { Db } from "../store/open.js";
import {
  BATCH_LIMITS,
  sourceTick,
  writeOptions,
  type BackfillOptions,
  type ProducerSwitch,
  type SourceTick,
  type TickProducer,
} from "./backfill.js";
import { writeBatch } from "./ingest.js";
import { prepareChunks, prepareRecords } from "./prepare.js";
import { SLOT, SLOT_COUNT, type ThreadInit, type ThreadMessage } from "./pipeline-protocol.js";

/** Bytes that crossed threads arrive as a plain Uint8Array: the same memory, as a Buffer. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** What the pipeline's thread builds its sources from (createSources), as plain data. */
export interface PipelineSpec {
  env: Env;
  config: Config;
  /** A fixed share of work the writer takes (tests, pipeline-share.ts); by default it follows the waits. */
  share?: number;
  /** Another bound for the queue than PIPELINE_QUEUE (tests). */
  queue?: { batches: number; bytes: number };
  /** Tests: the thread fails after posting this many batches. */
  failAfter?: number;
}

/**
 * The queue between the thread and the writer: batches prepared but not yet taken, at most. The
 * bytes bound memory; the count only keeps a queue of tiny batches finite. A batch's cost varies
 * on each side, and with at most 4 ticks queued (a tick's batches were then one message) the two
 * sides waited in turn: 200k Zipf messages, the thread 2.0–2.7 s for room and the writer 1.7–2.3
 * s for ticks, of a 15–20 s backfill; with 64, 0.3–0.6 and 0.6–0.9 s. Demo batches are larger: 16
 * MB of them queued put a 1M first backfill's peak RSS at 314–321 MiB (267–299 with 4 ticks), 8
 * MB at 281.
 */
export const PIPELINE_QUEUE = { batches: 64, bytes: 8 * 1024 * 1024 } as const;

/** How long the thread may take to load before the backfill goes on in this thread instead. */
const START_TIMEOUT_MS = 30_000;

export class IndexingThreadError extends Error {
  constructor(readonly kind: string) {
    super(`the indexing thread failed (${kind}); what it read was not written, run the command again`);
    this.name = "IndexingThreadError";
  }
}

/**
 * A backfill's hand-over to the pipeline: once its first group has committed without finishing,
 * the sources are read and the batches prepared (projected, compressed) on another thread while
 * this one writes. Stays in this thread on a single core, and where the thread cannot see what
 * this one would: an in-memory index, another clock, another redaction than the spec's.
 */
export function pipelineHandOver(spec: PipelineSpec, figures?: PipelineFigures): ProducerSwitch {
  return (db, options, inThread) => {
    if (db.memory || options.clock !== systemClock || availableParallelism() < 2) return null;
    const redaction = options.redaction ?? DEFAULT_REDACTION;
    if (compileRedaction(spec.config.redaction).fingerprint !== redaction.fingerprint) return null;
    const entry = threadEntry(import.meta.url, "index-thread.js", "indexer");
    return entry
      ? startPipeline(
          db,
          spec,
          options,
          entry,
          inThread,
          figures ?? { batches: 0, maxQueued: 0, writerProjected: 0, writerCompressed: 0 },
        )
      : null;
  };
}

/**
 * What went through the pipeline: batches written, the most ever queued at once, and the
 * records this thread projected and raw chunks it compressed (pipeline-share.ts).
 */
export interface PipelineFigures {
  batches: number;
  maxQueued: number;
  writerProjected: number;
  writerCompressed: number;
}

function startPipeline(
  db: Db,
  spec: PipelineSpec,
  options: BackfillOptions,
  entry: URL,
  inThread: TickProducer,
  figures: PipelineFigures,
): TickProducer {
  const redaction = options.redaction ?? DEFAULT_REDACTION;
  const shared = new SharedArrayBuffer(SLOT_COUNT * Int32Array.BYTES_PER_ELEMENT);
  const slots = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const init: ThreadInit = {
    file: db.name,
    env: { ...spec.env },
    config: spec.config,
    limits: { ...BATCH_LIMITS, ...options.limits },
    maxIdleMillis: options.maxIdleMillis ?? 30_000,
    queue: { ...(spec.queue ?? PIPELINE_QUEUE) },
    share: spec.share ?? null,
    failAfter: spec.failAfter ?? null,
    shared,
    port: port2,
  };
  const worker = new Worker(entry, {
    workerData: init,
    transferList: [port2],
    // A second heap with V8's default young generation was most of what the thread added to a
    // backfill's peak RSS, against the 300 MB bound. 16 MB rather than 8 since glibc's mmap
    // threshold freed room (app/malloc-settings.ts): 1M demo messages, four alternating pairs,
    // 46.5-48.7 s against 47.7-50.7, peak RSS 258-265 MiB against 248-256.
    resourceLimits: { maxYoungGenerationSizeMb: 16 },
  });
  worker.unref();
  /** Set from the event loop (a yielding backfill sees it between groups). */
  let gone: string | null = null;
  worker.on("error", (error) => (gone ??= errorKind(error)));
  worker.on("exit", (code) => (gone ??= `exit ${code}`));
  const startedAt = performance.now();
  let written = 0;
  let committed = 0;
  /**
   * The thread failed before handing over anything: this thread's sources, which stand where the
   * committed index does, read on.
   */
  let fallback: TickProducer | null = null;
  let closed = false;

  const fail = (kind: string): null => {
    if (written > 0) throw new IndexingThreadError(kind);
    stop();
    fallback = inThread;
    return null;
  };

  const take = (message: ThreadMessage): { ticks: SourceTick[]; finished: boolean } | null => {
    if (message.type === "error") return fail(message.kind);
    written = message.seq;
    figures.batches += 1;
    figures.maxQueued = Math.max(figures.maxQueued, Atomics.load(slots, SLOT.produced) - message.seq + 1);
    // Taken: the thread may prepare the next batch while this one writes.
    Atomics.store(slots, SLOT.received, message.seq);
    Atomics.notify(slots, SLOT.received);
    if (message.batch === null) return { ticks: [], finished: message.finished };
    const { source, batch, unprojected, uncompressed, ms } = message.batch;
    const started = performance.now();
    for (const chunk of batch.rawChunks) chunk.data = asBuffer(chunk.data);
    for (const record of prepareRecords(unprojected, redaction)) batch.records.push(record);
    // The batch's chunks in their order: those compressed here come after the thread's.
    const compressed = prepareChunks(
      uncompressed.map((chunk) => ({ ...chunk, bytes: asBuffer(chunk.bytes) })),
    );
    for (const chunk of compressed) batch.rawChunks.push(chunk);
    figures.writerProjected += unprojected.length;
    figures.writerCompressed += uncompressed.length;
    const ingested = writeBatch(db, batch, writeOptions(source, options));
    const tick = sourceTick(source, batch, ingested, ms + performance.now() - started);
    return { ticks: [tick], finished: message.finished };
  };

  const stop = (): void => {
    if (closed) return;
    closed = true;
    Atomics.store(slots, SLOT.stop, 1);
    for (const slot of [SLOT.received, SLOT.committed]) Atomics.notify(slots, slot);
    port1.close();
    void worker.terminate().catch(() => {});
  };

  return {
    next(deadline) {
      if (fallback) return fallback.next(deadline);
      for (;;) {
        const seen = Atomics.load(slots, SLOT.produced);
        const got = receiveMessageOnPort(port1);
        if (got) return take(got.message as ThreadMessage);
        if (Atomics.load(slots, SLOT.failed) !== 0) return fail("unknown");
        if (gone !== null) return fail(gone);
        // The thread waits for a commit before reading retained bytes back: end the group.
        const drain = Atomics.load(slots, SLOT.drain);
        if (drain > committed && drain <= written) return null;
        const now = performance.now();
        if (Atomics.load(slots, SLOT.ready) === 0 && now - startedAt > START_TIMEOUT_MS) return fail("start");
        if (now >= deadline) return null;
        Atomics.add(slots, SLOT.starved, 1);
        Atomics.wait(slots, SLOT.produced, seen, Math.min(deadline - now, 50));
      }
    },
    committed() {
      if (fallback) return fallback.committed?.();
      committed = written;
      Atomics.store(slots, SLOT.committed, committed);
      Atomics.notify(slots, SLOT.committed);
    },
    close() {
      stop();
      fallback?.close?.();
    },
  };
}
