import type { MessagePort } from "node:worker_threads";
import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";
import type { BatchLimits } from "./backfill.js";
import type { RawChunk, SourceRecord } from "../sources/types.js";
import type { PreparedBatch } from "./prepare.js";

/**
 * Slots of the Int32Array the writer and the pipeline's thread share. Sequence numbers count
 * the batches posted from 1 (one source's batch each, index-thread.ts). The writer blocks on them
 * synchronously (Atomics.wait), so a backfill group stays one synchronous transaction as in-thread.
 */
export const SLOT = {
  /** Batches the thread has posted. */
  produced: 0,
  /** Batches the writer has taken off the port (the queue's bound counts the rest). */
  received: 1,
  /** Batches whose group has committed (the thread's view drops their overlay). */
  committed: 2,
  /** A batch the thread waits to see committed before reading retained bytes back. */
  drain: 3,
  /** Set by the writer: the thread ends at its next wait. */
  stop: 4,
  /** Set by the thread when it fails (its error message follows on the port). */
  failed: 5,
  /** Set by the thread once its modules have loaded. */
  ready: 6,
  /** Times the writer found no batch ready and waited (pipeline-share.ts). */
  starved: 7,
} as const;
export const SLOT_COUNT = 8;

/** Everything the thread needs, as plain data: it builds its own sources and connection. */
export interface ThreadInit {
  /** The index file, opened read-only. */
  file: string;
  env: Env;
  config: Config;
  limits: BatchLimits;
  maxIdleMillis: number;
  /** Batches and approximate bytes posted but not yet received, at most. */
  queue: { batches: number; bytes: number };
  /** A fixed share of each batch's work for the writer (pipeline-share.ts); null follows the waits. */
  share: number | null;
  /** Tests: the thread fails once it has posted this many batches (a crash after handing work over). */
  failAfter: number | null;
  shared: SharedArrayBuffer;
  port: MessagePort;
}

/** One source's batch of a tick, prepared (projected, compressed) on the thread. */
export interface ThreadBatch {
  source: string;
  batch: PreparedBatch;
  /** The batch's last records, left for the writer to project (pipeline-share.ts). */
  unprojected: SourceRecord[];
  /** The batch's last raw chunks, left for the writer to compress (a copy of their bytes, moved). */
  uncompressed: (Omit<RawChunk, "bytes"> & { bytes: Uint8Array })[];
  /** nextBatch and prepare, in milliseconds. */
  ms: number;
}

export interface BatchMessage {
  type: "batch";
  seq: number;
  /** Null only in a tick that polled no source, when it ends the backfill. */
  batch: ThreadBatch | null;
  /** The tick's last batch, and the backfill's sources have all finished. */
  finished: boolean;
}

export type ThreadMessage = BatchMessage | { type: "error"; kind: string };
