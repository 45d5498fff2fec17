/**
 * The pipeline's thread (pipeline.ts): builds its own sources and a read-only connection, runs
 * the backfill's ticks — nextBatch, then prepareBatch (projection, redaction, compression) — and
 * posts each source's prepared batch to the writer, a bounded queue ahead of it. The last records
 * of a batch may travel unprojected and its last raw chunks uncompressed, for the writer to finish
 * (pipeline-share.ts).
 */
import { performance } from "node:perf_hooks";
import { workerData } from "node:worker_threads";
import { systemClock } from "../core/clock.js";
import { errorKind } from "../core/errors.js";
import { compileRedaction, type Redaction } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import type { SourceBatch } from "../sources/types.js";
import { openDatabase, STREAMING_CACHE_KIB } from "../store/open.js";
import { batchBudget, TickPlan } from "./backfill.js";
import { indexView } from "./checkpoints.js";
import { pendingView } from "./pending-view.js";
import {
  SLOT,
  type BatchMessage,
  type ThreadBatch,
  type ThreadInit,
  type ThreadMessage,
} from "./pipeline-protocol.js";
import { PipelineShare } from "./pipeline-share.js";
import { prepareBatch } from "./prepare.js";

const init = workerData as ThreadInit;
const slots = new Int32Array(init.shared);

/** The writer ended the pipeline (done, stopped, failed): leave quietly. */
class Stopped extends Error {}

const stopped = () => Atomics.load(slots, SLOT.stop) !== 0;

/** Blocks until `slot` holds at least `value`. */
function waitFor(slot: number, value: number): void {
  for (;;) {
    const now = Atomics.load(slots, slot);
    if (now >= value) return;
    if (stopped()) throw new Stopped();
    Atomics.wait(slots, slot, now, 100);
  }
}

/** Retained bytes a pending batch may change are read once the writer has committed it. */
function waitCommitted(seq: number): void {
  if (Atomics.load(slots, SLOT.committed) >= seq) return;
  Atomics.store(slots, SLOT.drain, seq);
  Atomics.notify(slots, SLOT.produced);
  waitFor(SLOT.committed, seq);
}

/** Batches posted and not yet taken by the writer, with their approximate size. */
const inFlight: { seq: number; bytes: number }[] = [];

/** Back-pressure: waits while the queue holds its bound of batches or bytes; true if it waited. */
function waitForRoom(): boolean {
  for (let waited = false; ; waited = true) {
    const received = Atomics.load(slots, SLOT.received);
    while (inFlight.length > 0 && inFlight[0]!.seq <= received) inFlight.shift();
    let bytes = 0;
    for (const t of inFlight) bytes += t.bytes;
    if (inFlight.length < init.queue.batches && bytes < init.queue.bytes) return waited;
    if (stopped()) throw new Stopped();
    Atomics.wait(slots, SLOT.received, received, 100);
  }
}

/** One source's batch as read: message `seq`, read in `ms`. */
interface Read {
  seq: number;
  source: string;
  batch: SourceBatch;
  ms: number;
}

/** A batch as the message the writer takes: prepared up to the share, its bytes moved. */
function prepareMessage(
  share: PipelineShare,
  redaction: Redaction,
  { seq, source, batch, ms }: Read,
  finished: boolean,
): { message: BatchMessage; transfer: ArrayBuffer[]; bytes: number } {
  const started = performance.now();
  const transfer: ArrayBuffer[] = [];
  let bytes = 0;
  const cut = share.cut(batch.records.length);
  const compressCut = share.compressCut(batch.rawChunks.length);
  const prepared = prepareBatch(
    {
      ...batch,
      records: batch.records.slice(0, cut),
      rawChunks: batch.rawChunks.slice(0, compressCut),
    },
    redaction,
  );
  const unprojected = batch.records.slice(cut);
  // A source's bytes may be a view of a buffer it keeps: they travel as a copy of their own.
  const uncompressed = batch.rawChunks
    .slice(compressCut)
    .map((chunk) => ({ ...chunk, bytes: new Uint8Array(chunk.bytes) }));
  let readBytes = 0;
  for (const chunk of prepared.rawChunks) {
    readBytes += chunk.length;
    // Moved, not copied: a compressed chunk owns its memory; a stored one (under 1 KiB)
    // may be a view of a buffer the source keeps, so it travels as a copy of its own.
    const own =
      chunk.codec !== "none" &&
      chunk.data.byteOffset === 0 &&
      chunk.data.byteLength === chunk.data.buffer.byteLength &&
      chunk.data.buffer instanceof ArrayBuffer;
    if (!own) chunk.data = new Uint8Array(chunk.data);
    transfer.push(chunk.data.buffer as ArrayBuffer);
    bytes += chunk.data.byteLength;
  }
  for (const chunk of uncompressed) {
    readBytes += chunk.bytes.length;
    transfer.push(chunk.bytes.buffer);
    bytes += chunk.bytes.length;
  }
  for (const r of prepared.records)
    bytes += 2 * (r.projected.read.text.length + r.projected.search.text.length);
  // What the unprojected records hold, estimated as their part of the bytes read.
  if (batch.records.length > 0)
    bytes += Math.round((2 * readBytes * unprojected.length) / batch.records.length);
  const threadBatch: ThreadBatch = {
    source,
    batch: prepared,
    unprojected,
    uncompressed,
    ms: ms + performance.now() - started,
  };
  return { message: { type: "batch", seq, batch: threadBatch, finished }, transfer, bytes };
}

function run(): void {
  const db = openDatabase(init.file, { readonly: true, cacheKib: STREAMING_CACHE_KIB });
  const sources = createSources(init.env, init.config);
  try {
    const redaction = compileRedaction(init.config.redaction);
    const view = pendingView(
      indexView(db),
      () => Atomics.load(slots, SLOT.committed),
      waitCommitted,
      init.config.retention.rawMaxBytesPerSource !== null,
    );
    const plan = new TickPlan(
      sources.map((s) => s.name),
      init.maxIdleMillis,
    );
    const limits = init.limits;
    const share = new PipelineShare(Atomics.load(slots, SLOT.starved), init.share);
    let seq = 0;
    /** Posts one source's batch, prepared, as message `read.seq`; the last of all says so. */
    const post = (read: Read | null, finished: boolean): void => {
      const { message, transfer, bytes } = read
        ? prepareMessage(share, redaction, read, finished)
        : { message: { type: "batch" as const, seq: ++seq, batch: null, finished }, transfer: [], bytes: 0 };
      inFlight.push({ seq: message.seq, bytes });
      init.port.postMessage(message, transfer);
      Atomics.store(slots, SLOT.produced, message.seq);
      Atomics.notify(slots, SLOT.produced);
    };
    while (!plan.finished) {
      const polled = plan.polled();
      const outcomes: { source: string; idle: boolean; progress: SourceBatch["progress"] }[] = [];
      // One source's batch posted at a time, not a tick's at once: what the thread holds between
      // posts stays small, and fewer objects outlive a young-generation collection (200k demo
      // messages: the thread's collections 1.90 → 1.48 s). The tick's last waits for its end,
      // which tells whether the backfill is done.
      let last: Read | null = null;
      for (const source of sources) {
        if (!polled.has(source.name)) continue;
        if (last) post(last, false);
        seq += 1;
        if (init.failAfter !== null && seq > init.failAfter) throw new Error("injected thread failure");
        share.observe(Atomics.load(slots, SLOT.starved), waitForRoom());
        const started = performance.now();
        const budget = batchBudget(limits, systemClock.now(), started, true);
        const batch = source.nextBatch(view, budget);
        view.add(seq, source.name, batch);
        outcomes.push({ source: source.name, idle: batch.idle, progress: batch.progress });
        last = { seq, source: source.name, batch, ms: performance.now() - started };
      }
      plan.observe(outcomes);
      if (last || plan.finished) post(last, plan.finished);
    }
  } finally {
    for (const source of sources) source.close?.();
    db.close();
  }
}

Atomics.store(slots, SLOT.ready, 1);
try {
  run();
} catch (error) {
  if (!(error instanceof Stopped)) {
    const message: ThreadMessage = { type: "error", kind: errorKind(error) };
    init.port.postMessage(message);
    Atomics.store(slots, SLOT.failed, 1);
    Atomics.notify(slots, SLOT.produced);
  }
}
