import {
  DEFAULT_REDACTION,
  projectChatMessage,
  projectTranscriptTurnBoth,
  type Redaction,
} from "../projection/index.js";
import type { RawChunk, RecordContent, SourceBatch, SourceRecord } from "../sources/types.js";
import { compressRaw, type RawCodec } from "./raw-codec.js";

export interface Projected {
  search: { text: string; truncated: boolean; indexable: boolean };
  read: { text: string; truncated: boolean };
  isCompactionSummary: boolean;
  /** The search text was derived from the read text (store/document-text.ts storedBody need not check). */
  searchFromRead?: boolean;
}

/** Both projections of one record, secrets redacted: what the index may hold and what a read may return. */
export function projectRecord(content: RecordContent, redaction: Redaction = DEFAULT_REDACTION): Projected {
  if (content.type === "chat") {
    const input = {
      role: content.role,
      content: content.content,
      isCompactionSummary: content.isCompactionSummary,
    };
    const search = projectChatMessage(input, "search", redaction);
    const read = projectChatMessage(input, "read", redaction);
    return {
      search: { text: search.text, truncated: search.truncated, indexable: search.text.length > 0 },
      read,
      isCompactionSummary: content.isCompactionSummary,
    };
  }
  const { search, read, searchFromRead } = projectTranscriptTurnBoth(content.turn, redaction);
  return { search, read, isCompactionSummary: content.turn.isCompactionSummary, searchFromRead };
}

/** A record as the writer takes it: its projections instead of its source content. */
export type PreparedRecord = Omit<SourceRecord, "content"> & { projected: Projected };

/** A raw chunk as the writer takes it: compressed, with its original length. */
export type PreparedChunk = Omit<RawChunk, "bytes"> & { length: number; data: Uint8Array; codec: RawCodec };

/** A source batch after the pure steps of ingesting it; what is left is SQL (ingest.ts). */
export type PreparedBatch = Omit<SourceBatch, "records" | "rawChunks"> & {
  records: PreparedRecord[];
  rawChunks: PreparedChunk[];
};

/**
 * A record with its projection in place of its content, its fields written out: a spread
 * (`{ ...rest, projected }`) cost about 1 µs a record against 0.04, for the million records of a
 * first backfill, most of them on the writer's thread.
 */
function preparedRecord(r: SourceRecord, projected: Projected) {
  return {
    sourceKey: r.sourceKey,
    hitId: r.hitId,
    conversation: r.conversation,
    at: r.at,
    role: r.role,
    kind: r.kind,
    cursor: r.cursor,
    message: r.message,
    job: r.job,
    run: r.run,
    model: r.model,
    branch: r.branch,
    appId: r.appId,
    chatId: r.chatId,
    participants: r.participants,
    supersedes: r.supersedes,
    epoch: r.epoch,
    projected,
  };
}

/** Records with their projections in place of their content. */
export function prepareRecords(records: readonly SourceRecord[], redaction: Redaction): PreparedRecord[] {
  return records.map((record) => preparedRecord(record, projectRecord(record.content, redaction)));
}

/**
 * The pure part of ingesting a batch — projection with redaction, raw-chunk compression — which
 * needs no database, so it can run on another thread than the writer (pipeline.ts). The
 * source's content and bytes are dropped: only what is written travels on.
 */
export function prepareBatch(batch: SourceBatch, redaction: Redaction = DEFAULT_REDACTION): PreparedBatch {
  return {
    ...batch,
    records: prepareRecords(batch.records, redaction),
    rawChunks: prepareChunks(batch.rawChunks),
  };
}

/** Raw chunks compressed, their bytes dropped. */
export function prepareChunks(chunks: readonly RawChunk[]): PreparedChunk[] {
  return chunks.map((chunk) => {
    const { data, codec } = compressRaw(chunk.bytes);
    return preparedChunk(chunk, data, codec);
  });
}

/** A raw chunk with its compressed bytes in place of its bytes, written out as preparedRecord is. */
function preparedChunk(c: RawChunk, data: Buffer, codec: RawCodec) {
  return {
    source: c.source,
    file: c.file,
    conversation: c.conversation,
    offset: c.offset,
    unit: c.unit,
    epoch: c.epoch,
    firstAt: c.firstAt,
    lastAt: c.lastAt,
    dedupe: c.dedupe,
    length: c.bytes.length,
    data,
    codec,
  };
}

/**
 * `true` only when a copy carries every field of its source but `Dropped`: a field added to
 * SourceRecord or RawChunk must be written out in preparedRecord or preparedChunk too, or this
 * file fails to compile.
 */
type CarriesAll<Source, Copy, Dropped extends keyof Source> = [
  Exclude<keyof Source, Dropped | keyof Copy>,
] extends [never]
  ? true
  : never;
const copiesComplete: [
  CarriesAll<SourceRecord, ReturnType<typeof preparedRecord>, "content">,
  CarriesAll<RawChunk, ReturnType<typeof preparedChunk>, "bytes">,
] = [true, true];
void copiesComplete;
