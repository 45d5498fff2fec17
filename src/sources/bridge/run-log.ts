import { utf8Cut } from "../shared/utf8-cut.js";
import type { ByteSource } from "../files/byte-source.js";
import { READ_CHUNK_BYTES } from "../files/byte-source.js";

/**
 * A run log read from a byte cursor in 64 KiB reads and cut into documents of at most
 * RUN_DOC_BYTES, each starting at its own byte offset (a hit's `cursor`). Cuts fall after a
 * newline when the window holds one, else on a UTF-8 character boundary. An incomplete final
 * line is held back (read again next time) unless the caller knows the run has finished.
 * Documents stay below the search projection's 16 KiB bound, so no chunk is cut in the middle.
 */
export const RUN_DOC_BYTES = 8 * 1024;

export interface RunPiece {
  offset: number;
  text: string;
}

export interface RunRead {
  pieces: RunPiece[];
  /** The cursor after the last piece. */
  next: number;
  bytesRead: number;
  /** True when the read reached the end of the file (not the byte budget). */
  exhausted: boolean;
}

const NEWLINE = 0x0a;

export function readRunLog(
  source: ByteSource,
  offset: number,
  maxBytes: number,
  flushTail: boolean,
): RunRead {
  const pieces: RunPiece[] = [];
  const decoder = new TextDecoder("utf-8");
  let start = offset;
  let carry = Buffer.alloc(0);
  let position = offset;
  let bytesRead = 0;
  let exhausted = false;
  const emit = (bytes: Buffer) => {
    const text = decoder.decode(bytes);
    if (text.trim().length > 0) pieces.push({ offset: start, text });
    start += bytes.length;
  };
  while (bytesRead < maxBytes) {
    const chunk = source.read(position, READ_CHUNK_BYTES);
    if (chunk.length === 0) {
      exhausted = true;
      break;
    }
    position += chunk.length;
    bytesRead += chunk.length;
    let buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    while (buf.length >= RUN_DOC_BYTES) {
      const newline = buf.lastIndexOf(NEWLINE, RUN_DOC_BYTES - 1);
      const cut = newline >= 0 ? newline + 1 : utf8Cut(buf, RUN_DOC_BYTES);
      emit(buf.subarray(0, cut));
      buf = buf.subarray(cut);
    }
    carry = Buffer.from(buf);
  }
  if (carry.length > 0) {
    const newline = carry.lastIndexOf(NEWLINE);
    if (exhausted && flushTail) emit(carry);
    else if (newline >= 0) emit(carry.subarray(0, newline + 1));
  }
  return { pieces, next: start, bytesRead, exhausted };
}
