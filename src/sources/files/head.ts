import { createHash } from "node:crypto";
import type { ByteSource } from "./byte-source.js";

/** How many leading bytes identify a file's content (a replaced file differs here). */
export const HEAD_BYTES = 4096;

/** Reads up to `length` bytes from the start of a source. */
export function readHead(source: ByteSource, length = HEAD_BYTES): Buffer {
  return readRange(source, 0, length);
}

/** Reads `[start, end)` of a source, or as much of it as the source holds. */
export function readRange(source: ByteSource, start: number, end: number): Buffer {
  const parts: Buffer[] = [];
  let got = 0;
  while (start + got < end) {
    const piece = source.read(start + got, end - start - got);
    if (piece.length === 0) break;
    parts.push(piece);
    got += piece.length;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, got);
}

/** `<length>:<sha1 hex>` of the given head bytes. */
export function headHash(head: Buffer): string {
  return `${head.length}:${createHash("sha1").update(head).digest("hex")}`;
}

export function parseHeadHash(value: string | null | undefined): { length: number; hash: string } | null {
  if (!value) return null;
  const colon = value.indexOf(":");
  if (colon <= 0) return null;
  const length = Number(value.slice(0, colon));
  return Number.isSafeInteger(length) ? { length, hash: value } : null;
}

/**
 * Whether `source` still starts with the bytes a checkpoint recorded. A file shorter than the
 * recorded head is a different file; a longer one is compared on the recorded length only.
 */
export function sameHead(source: ByteSource, recorded: string | null | undefined): boolean {
  const parsed = parseHeadHash(recorded);
  if (!parsed) return true;
  const head = readHead(source, parsed.length);
  if (head.length < parsed.length) return false;
  return headHash(head) === parsed.hash;
}

/** How many bytes before a file's read end identify what was read there. */
const TAIL_BYTES = 4096;

/**
 * `<end>:<sha1 hex>` of the bytes just before `end` (null at 0). Recorded with a plain file's
 * checkpoint, it tells a file that only grew from one rewritten in place past its head (an
 * appended line must continue what was read, never sit on bytes that changed).
 */
export function tailHash(source: ByteSource, end: number): string | null {
  if (end <= 0) return null;
  const bytes = readRange(source, Math.max(0, end - TAIL_BYTES), end);
  return `${end}:${createHash("sha1").update(bytes).digest("hex")}`;
}

/** Whether the bytes before a recorded tail's end are still the ones read (true when none was recorded). */
export function sameTail(source: ByteSource, recorded: string | null | undefined): boolean {
  if (!recorded) return true;
  const end = Number(recorded.slice(0, recorded.indexOf(":")));
  if (!Number.isSafeInteger(end) || end <= 0) return true;
  return tailHash(source, end) === recorded;
}
