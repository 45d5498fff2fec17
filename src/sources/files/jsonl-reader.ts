import { FileByteSource, READ_CHUNK_BYTES, type ByteSource } from "./byte-source.js";

export { READ_CHUNK_BYTES };
/**
 * Lines longer than this are discarded from parsing in bounded memory and counted (8 MiB by
 * default); their bytes are still handed to raw retention, so nothing is lost from the archive.
 */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

export interface JsonlLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte length including the trailing newline. */
  length: number;
  text: string;
}

export interface OversizedLine {
  offset: number;
  length: number;
}

/** Exact bytes as read, for byte-exact retention. */
export interface RawPiece {
  offset: number;
  bytes: Buffer;
}

export interface JsonlReadResult {
  lines: JsonlLine[];
  /** Lines over the maximum: skipped without being held in memory. */
  oversized: OversizedLine[];
  /** Where the next read starts: just after the last complete line (or inside a discarded one). */
  nextOffset: number;
  /** State to carry while discarding an oversized line that has not ended yet. */
  discarding: OversizedLine | null;
  /** The source's size when read (null for a stream whose end is not known yet). */
  size: number | null;
  /** True when the bytes after nextOffset are an incomplete final line, held back for a later read. */
  heldBack: boolean;
  /** True when the read stopped because the source had no more bytes (not because of the budget). */
  exhausted: boolean;
  bytesRead: number;
  /**
   * The bytes of [offset, nextOffset) exactly as read, in order, in pieces of at most 64 KiB.
   * Bytes of a held-back final line are not included: they are read again next time.
   */
  raw: RawPiece[];
}

export interface JsonlReadOptions {
  offset: number;
  /** Start no new chunk after this many bytes, unless a line is half assembled. */
  maxBytes: number;
  maxLineBytes?: number;
  /** Carried from the previous call when it stopped inside an oversized line. */
  discarding?: OversizedLine | null;
  /** Keep the raw pieces in the result (for retention). */
  keepRaw?: boolean;
  /** Called with every raw chunk exactly as read (including a held-back tail read again later). */
  onChunk?: (offset: number, bytes: Buffer) => void;
}

/**
 * Reads complete JSONL lines from a byte offset with bounded memory: 64 KiB reads, lines
 * assembled across reads up to maxLineBytes, an incomplete final line held back (its bytes
 * are read again next time), and an oversized line skipped while only its length is kept.
 */
export function readLines(source: ByteSource, options: JsonlReadOptions): JsonlReadResult {
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const lines: JsonlLine[] = [];
  const oversized: OversizedLine[] = [];
  const raw: RawPiece[] = [];
  let discarding = options.discarding ? { ...options.discarding } : null;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineStart = options.offset;
  let position = options.offset;
  let committed = options.offset;
  let bytesRead = 0;
  let exhausted = false;

  // maxBytes bounds a call, but a line already begun is finished (up to maxLine bytes) so
  // that a line longer than one call's budget still completes in bounded memory.
  while (
    bytesRead < options.maxBytes ||
    (pendingBytes > 0 && lineStart - options.offset < options.maxBytes)
  ) {
    const view = source.read(position, READ_CHUNK_BYTES);
    const n = view.length;
    if (n === 0) {
      exhausted = true;
      break;
    }
    options.onChunk?.(position, view);
    if (options.keepRaw) raw.push({ offset: position, bytes: view });
    bytesRead += n;
    let cursor = 0;
    while (cursor < n) {
      const newline = view.indexOf(0x0a, cursor);
      const end = newline === -1 ? n : newline + 1;
      const piece = view.subarray(cursor, end);
      if (discarding) {
        discarding.length += piece.length;
      } else if (pendingBytes + piece.length > maxLine + 1) {
        discarding = { offset: lineStart, length: pendingBytes + piece.length };
        pending = [];
        pendingBytes = 0;
      } else {
        pending.push(piece);
        pendingBytes += piece.length;
      }
      if (newline !== -1) {
        const lineEnd = position + end;
        if (discarding) {
          oversized.push(discarding);
          discarding = null;
        } else {
          const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
          let textEnd = bytes.length - 1;
          if (textEnd > 0 && bytes[textEnd - 1] === 0x0d) textEnd -= 1;
          const text = bytes.toString("utf8", 0, textEnd);
          if (text.trim().length > 0) lines.push({ offset: lineStart, length: lineEnd - lineStart, text });
        }
        pending = [];
        pendingBytes = 0;
        lineStart = lineEnd;
        committed = lineEnd;
      }
      cursor = end;
    }
    position += n;
  }
  // A discarded line's bytes never need re-reading: resume after them. A held-back
  // incomplete line is re-read from its start next time.
  const nextOffset = discarding ? position : committed;
  if (options.keepRaw) trimRaw(raw, nextOffset);
  return {
    lines,
    oversized,
    nextOffset,
    discarding,
    size: source.size,
    heldBack: !discarding && committed < position,
    exhausted,
    bytesRead,
    raw,
  };
}

/** Drops raw bytes at or after `end` (the held-back tail). */
function trimRaw(raw: RawPiece[], end: number): void {
  while (raw.length > 0) {
    const last = raw[raw.length - 1]!;
    if (last.offset >= end) {
      raw.pop();
      continue;
    }
    if (last.offset + last.bytes.length > end) {
      raw[raw.length - 1] = { offset: last.offset, bytes: last.bytes.subarray(0, end - last.offset) };
    }
    break;
  }
}

/** readLines over a file path, opened read-only for the duration of the call. */
export function readJsonl(file: string, options: JsonlReadOptions): JsonlReadResult {
  const source = new FileByteSource(file);
  try {
    return readLines(source, options);
  } finally {
    source.close();
  }
}
