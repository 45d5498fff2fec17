import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { decompressRaw } from "./raw-codec.js";

/** One retained file of a conversation, as export writes it. */
export interface ExportedFile {
  source: string;
  file: string;
  epoch: number;
  bytes: number;
  /** False when a gap (chunks pruned by the retention bound) interrupts the file. */
  complete: boolean;
}

/** A conversation's retained files in export order: each one's newest epoch and the bytes kept of it. */
const FILES = `SELECT f.source, f.file, f.epoch,
    (SELECT sum(c.length) FROM recall_raw_chunks c
     WHERE c.source = f.source AND c.file = f.file AND c.epoch = f.epoch AND c.conversation = ?) AS bytes
  FROM (SELECT source, file, max(epoch) AS epoch, min(id) AS first FROM recall_raw_chunks
        WHERE conversation = ? GROUP BY source, file) f
  ORDER BY f.first`;

interface RetainedFile {
  source: string;
  file: string;
  epoch: number;
  bytes: number;
}

const filesOf = (db: Db, conversation: string) =>
  statement(db, FILES).all(conversation, conversation) as RetainedFile[];

/** Every retained version (epoch) of each file of a conversation, oldest first. */
const VERSIONS = `SELECT source, file, epoch, sum(length) AS bytes, min(id) AS first FROM recall_raw_chunks
  WHERE conversation = ? GROUP BY source, file, epoch ORDER BY min(id)`;

/**
 * The earlier versions of a conversation's files still retained: a file the CLI truncated or
 * rewrote is read again as a new version (epoch), and the bytes of the versions before stay
 * (sources/files/jsonl-source.ts). Export writes the newest by default; `epoch` picks another.
 */
export function earlierVersions(
  db: Db,
  conversation: string,
): { file: string; epoch: number; bytes: number }[] {
  const newest = new Map(filesOf(db, conversation).map((f) => [`${f.source}\u0000${f.file}`, f.epoch]));
  return (statement(db, VERSIONS).all(conversation) as RetainedFile[])
    .filter((v) => v.epoch !== newest.get(`${v.source}\u0000${v.file}`))
    .map((v) => ({ file: v.file, epoch: v.epoch, bytes: v.bytes }));
}

/**
 * The files a conversation's raw bytes were retained from, in export order, with the bytes kept
 * of each (newest epoch; a chunk retained twice counts twice).
 */
export function retainedFiles(db: Db, conversation: string): { file: string; bytes: number }[] {
  return filesOf(db, conversation).map((f) => ({ file: f.file, bytes: f.bytes }));
}
const CHUNKS = `SELECT offset, length, data, unit, codec FROM recall_raw_chunks
  WHERE source = ? AND file = ? AND epoch = ? AND conversation = ? ORDER BY offset, id`;

/**
 * Writes a conversation's retained raw bytes back verbatim: for each file it was read from
 * (in the order they were first retained), the newest epoch's chunks in offset order. A JSONL
 * transcript the CLI deleted comes back byte for byte; opencode rows come back as the JSON
 * lines they were retained as. `only` names one of the files (one session's transcripts in two
 * project folders are two files). Chunks are inflated one at a time, so memory stays bounded.
 */
export function exportConversation(
  db: Db,
  conversation: string,
  write: (bytes: Buffer) => void,
  only?: string,
  /** An earlier version (epoch) of `only` instead of its newest (see earlierVersions). */
  epoch?: number,
): ExportedFile[] {
  const files = filesOf(db, conversation)
    .filter((f) => only === undefined || f.file === only)
    .map((f) => (epoch === undefined ? f : { ...f, epoch }));
  const out: ExportedFile[] = [];
  for (const f of files) {
    let position: number | null = null;
    let complete = true;
    let bytes = 0;
    for (const chunk of statement(db, CHUNKS).iterate(f.source, f.file, f.epoch, conversation) as Iterable<{
      offset: number;
      length: number;
      data: Buffer;
      unit: string;
      codec: string;
    }>) {
      let data = decompressRaw(chunk.data, chunk.codec);
      if (chunk.unit === "row") {
        write(data);
        bytes += data.length;
        continue;
      }
      if (position !== null && chunk.offset < position) {
        // Overlap (a chunk retained twice): skip what was already written.
        const skip = position - chunk.offset;
        if (skip >= data.length) continue;
        data = data.subarray(skip);
      } else if (position !== null && chunk.offset > position) {
        complete = false;
      } else if (position === null && chunk.offset > 0) {
        complete = false;
      }
      write(data);
      bytes += data.length;
      position = Math.max(position ?? 0, chunk.offset + chunk.length);
    }
    out.push({ source: f.source, file: f.file, epoch: f.epoch, bytes, complete });
  }
  return out;
}

/** Whether any raw bytes are retained for a conversation. */
export function hasRetained(db: Db, conversation: string): boolean {
  return (
    statement(db, "SELECT 1 FROM recall_raw_chunks WHERE conversation = ? LIMIT 1").get(conversation) !==
    undefined
  );
}
