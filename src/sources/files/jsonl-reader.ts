import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** At most this many bytes are read from a file per call (the spec's 64 KiB read cap). */
export const READ_CHUNK_BYTES = 64 * 1024;
/** Lines longer than this are discarded in bounded memory and counted (8 MiB by default). */
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

export interface JsonlReadResult {
  lines: JsonlLine[];
  /** Lines over the maximum: skipped without being held in memory. */
  oversized: OversizedLine[];
  /** Where the next read starts: just after the last complete line (or inside a discarded one). */
  nextOffset: number;
  /** State to carry while discarding an oversized line that has not ended yet. */
  discarding: OversizedLine | null;
  /** The file's size when read. */
  size: number;
  /** True when the bytes after nextOffset are an incomplete final line, held back for a later read. */
  heldBack: boolean;
  bytesRead: number;
}

export interface JsonlReadOptions {
  offset: number;
  /** Start no new chunk after this many bytes, unless a line is half assembled. */
  maxBytes: number;
  maxLineBytes?: number;
  /** Carried from the previous call when it stopped inside an oversized line. */
  discarding?: OversizedLine | null;
  /** Called with every raw chunk exactly as read, for byte-exact retention. */
  onChunk?: (offset: number, bytes: Buffer) => void;
}

/**
 * Reads complete JSONL lines from a byte offset with bounded memory: 64 KiB reads, lines
 * assembled across reads up to maxLineBytes, an incomplete final line held back (its bytes
 * are read again next time), and an oversized line skipped while only its length is kept.
 */
export function readJsonl(file: string, options: JsonlReadOptions): JsonlReadResult {
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const lines: JsonlLine[] = [];
    const oversized: OversizedLine[] = [];
    let discarding = options.discarding ?? null;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let lineStart = options.offset;
    let position = options.offset;
    let committed = options.offset;
    let bytesRead = 0;
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);

    // maxBytes bounds a call, but a line already begun is finished (up to maxLine bytes) so
    // that a line longer than one call's budget still completes in bounded memory.
    while (
      position < size &&
      (bytesRead < options.maxBytes || (pendingBytes > 0 && lineStart - options.offset < options.maxBytes))
    ) {
      const n = readSync(fd, chunk, 0, Math.min(READ_CHUNK_BYTES, size - position), position);
      if (n <= 0) break;
      const view = chunk.subarray(0, n);
      options.onChunk?.(position, Buffer.from(view));
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
          pending.push(Buffer.from(piece));
          pendingBytes += piece.length;
        }
        if (newline !== -1) {
          const lineEnd = position + end;
          if (discarding) {
            oversized.push(discarding);
            discarding = null;
          } else {
            const text = Buffer.concat(pending, pendingBytes)
              .toString("utf8")
              .replace(/\r?\n$/, "");
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
    return {
      lines,
      oversized,
      nextOffset,
      discarding,
      size,
      heldBack: !discarding && committed < position,
      bytesRead,
    };
  } finally {
    closeSync(fd);
  }
}
