import path from "node:path";
import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { decompressRaw } from "./raw-codec.js";
import type {
  ConversationRef,
  IndexView,
  RetainedChunk,
  RetainedExtent,
  SourceCheckpoint,
} from "../sources/types.js";

const GET = `SELECT source, key, offset, size, mtime, head_hash AS headHash, state
  FROM recall_checkpoints WHERE source = ? AND key = ?`;
/** Along the primary key (source, key): a page costs what it returns. */
const PAGE = `SELECT source, key, offset, size, mtime, head_hash AS headHash, state
  FROM recall_checkpoints WHERE source = ? AND key > ? ORDER BY key LIMIT ?`;
/** Along recall_raw_chunks_file (source, file, ...): each distinct file is one seek. */
const FILES =
  "SELECT DISTINCT file FROM recall_raw_chunks WHERE source = ? AND file > ? ORDER BY file LIMIT ?";
const NEWEST_EPOCH = "SELECT max(epoch) AS epoch FROM recall_raw_chunks WHERE source = ? AND file = ?";
const EXTENT = `SELECT max(offset + length) AS end, min(offset) AS start, min(conversation) AS conversation
  FROM recall_raw_chunks WHERE source = ? AND file = ? AND epoch = ?`;
/** Chunks overlapping [position, position + length), in order. */
const CHUNKS = `SELECT offset, length, data, codec FROM recall_raw_chunks
  WHERE source = @source AND file = @file AND epoch = @epoch AND offset < @end AND offset + length > @position
    AND offset >= @position - @maxChunk
  ORDER BY offset LIMIT 8`;
/**
 * Paged along the primary key (`+source` keeps the source index, which would sort every page's
 * whole source, out of it): a caller starting from its ids' prefix reads only its own rows.
 */
const CONVERSATIONS = `SELECT id, source, agent, kind, project, session, parent, title, model, branch
  FROM recall_conversations WHERE +source = ? AND id > ? ORDER BY id LIMIT ?`;
const CONVERSATION_CHUNKS = `SELECT id, file, unit, offset, data, codec FROM recall_raw_chunks
  WHERE conversation = ? AND source = ? AND id > ? ORDER BY id LIMIT ?`;
/** Files sort between `folder/` and `folder0` ('0' follows '/'), so the file index serves the range. */
const CHUNKS_UNDER = `SELECT id, file, unit, offset, data, codec FROM recall_raw_chunks WHERE id IN (
    SELECT max(id) FROM recall_raw_chunks WHERE source = ? AND file > ? AND file < ? GROUP BY file)
  ORDER BY file`;
const MAX_CHUNK =
  "SELECT max(length) AS n FROM recall_raw_chunks WHERE source = ? AND file = ? AND epoch = ?";

/** The committed checkpoints and retained bytes, as sources see them (read-only). */
export function indexView(db: Db): IndexView {
  const maxChunkCache = new Map<string, number>();
  const maxChunk = (source: string, file: string, epoch: number): number => {
    const key = `${source}\u0000${file}\u0000${epoch}`;
    let n = maxChunkCache.get(key);
    if (n === undefined) {
      n = (statement(db, MAX_CHUNK).get(source, file, epoch) as { n: number | null }).n ?? 0;
      maxChunkCache.set(key, n);
    }
    return n;
  };

  const readRetained = (
    source: string,
    file: string,
    epoch: number,
    position: number,
    length: number,
  ): Buffer => {
    const parts: Buffer[] = [];
    const end = position + length;
    let at = position;
    // A query returns a few chunks (CHUNKS' LIMIT); a range over many small ones (a line per
    // poll) takes several, each from where the last stopped.
    for (let progressed = true; progressed && at < end;) {
      progressed = false;
      const rows = statement(db, CHUNKS).all({
        source,
        file,
        epoch,
        position: at,
        end,
        maxChunk: maxChunk(source, file, epoch),
      }) as { offset: number; length: number; data: Buffer; codec: string }[];
      for (const row of rows) {
        if (row.offset > at) break; // a gap (pruned): stop at it
        const bytes = decompressRaw(row.data, row.codec);
        const from = at - row.offset;
        const take = Math.min(bytes.length - from, end - at);
        if (take <= 0) continue;
        parts.push(bytes.subarray(from, from + take));
        at += take;
        progressed = true;
        if (at >= end) break;
      }
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  };

  const toChunks = (rows: RawChunkRow[]): RetainedChunk[] =>
    rows.map((r) => ({
      id: r.id,
      file: r.file,
      unit: r.unit === "row" ? "row" : "byte",
      offset: r.offset,
      bytes: decompressRaw(r.data, r.codec),
    }));

  return {
    checkpoint(source, key) {
      return statement(db, GET).get(source, key) as SourceCheckpoint | undefined;
    },
    checkpointsAfter(source, afterKey, limit) {
      return statement(db, PAGE).all(source, afterKey, limit) as SourceCheckpoint[];
    },
    retainedFilesAfter(source, afterFile, limit) {
      return (statement(db, FILES).all(source, afterFile, limit) as { file: string }[]).map((r) => r.file);
    },
    retainedExtent(source, file, headBytes): RetainedExtent | null {
      const newest = (statement(db, NEWEST_EPOCH).get(source, file) as { epoch: number | null }).epoch;
      if (newest === null) return null;
      const extent = statement(db, EXTENT).get(source, file, newest) as {
        end: number | null;
        start: number | null;
        conversation: string | null;
      };
      if (extent.end === null) return null;
      maxChunkCache.delete(`${source}\u0000${file}\u0000${newest}`);
      const head =
        extent.start === 0 && headBytes > 0
          ? readRetained(source, file, newest, 0, headBytes)
          : Buffer.alloc(0);
      return {
        epoch: newest,
        start: extent.start ?? 0,
        end: extent.end,
        head,
        conversation: extent.conversation,
      };
    },
    readRetained,
    retainedConversations(source, afterId, limit) {
      return statement(db, CONVERSATIONS).all(source, afterId, limit) as ConversationRef[];
    },
    retainedChunks(source, conversation, afterId, limit) {
      return toChunks(
        statement(db, CONVERSATION_CHUNKS).all(conversation, source, afterId, limit) as RawChunkRow[],
      );
    },
    retainedUnder(source, folder) {
      const last = String.fromCharCode(path.sep.charCodeAt(0) + 1);
      return toChunks(
        statement(db, CHUNKS_UNDER).all(source, folder + path.sep, folder + last) as RawChunkRow[],
      );
    },
  };
}

interface RawChunkRow {
  id: number;
  file: string;
  unit: string;
  offset: number;
  data: Buffer;
  codec: string;
}
