import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import type { TextSink } from "./writer.js";

/**
 * Minimal zstd *encoder* for Codex `.jsonl.zst` rollouts: Node 20 ships no zstd compressor, so we
 * write valid zstd frames (RFC 8878) made only of Raw (uncompressed) blocks. Any zstd decoder reads
 * them; they are just not smaller than the input.
 *
 * Frame layout used here:
 *   Magic_Number 0xFD2FB528 (little-endian) | Frame_Header_Descriptor | [Window_Descriptor] |
 *   [Frame_Content_Size] | Block* (3-byte header: Last_Block bit 0, Block_Type bits 1-2 = 0 (Raw),
 *   Block_Size bits 3-23) — no dictionary, no content checksum.
 */

export const ZSTD_MAGIC = 0xfd2fb528;
/** Raw blocks may not exceed Block_Maximum_Size = min(Window_Size, 128 KiB). */
export const ZSTD_MAX_BLOCK = 128 * 1024;

function magicBytes(): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(ZSTD_MAGIC, 0);
  return b;
}

function blockHeader(size: number, last: boolean): Buffer {
  const v = (size << 3) | (0 /* Raw */ << 1) | (last ? 1 : 0);
  return Buffer.from([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff]);
}

/**
 * Single-segment frame header with a known Frame_Content_Size (the window is the whole content).
 * FCS_Field_Size: 1 byte (< 256), 2 bytes (value − 256, < 65792), 4 bytes, or 8 bytes.
 */
function singleSegmentHeader(contentSize: number): Buffer {
  const SINGLE_SEGMENT = 1 << 5;
  if (contentSize < 256) return Buffer.concat([magicBytes(), Buffer.from([SINGLE_SEGMENT, contentSize])]);
  if (contentSize < 65536 + 256) {
    const fcs = Buffer.alloc(2);
    fcs.writeUInt16LE(contentSize - 256, 0);
    return Buffer.concat([magicBytes(), Buffer.from([(1 << 6) | SINGLE_SEGMENT]), fcs]);
  }
  if (contentSize <= 0xffffffff) {
    const fcs = Buffer.alloc(4);
    fcs.writeUInt32LE(contentSize, 0);
    return Buffer.concat([magicBytes(), Buffer.from([(2 << 6) | SINGLE_SEGMENT]), fcs]);
  }
  const fcs = Buffer.alloc(8);
  fcs.writeBigUInt64LE(BigInt(contentSize), 0);
  return Buffer.concat([magicBytes(), Buffer.from([(3 << 6) | SINGLE_SEGMENT]), fcs]);
}

/**
 * Streaming frame header: content size unknown, Window_Descriptor = 128 KiB
 * (Exponent 7 → windowLog 17, Mantissa 0), so blocks of up to 128 KiB are allowed.
 */
function streamingHeader(): Buffer {
  return Buffer.concat([magicBytes(), Buffer.from([0x00, 7 << 3])]);
}

/** Encodes `data` as one zstd frame of Raw blocks with Frame_Content_Size set. */
export function encodeZstdRawFrame(data: Uint8Array): Buffer {
  const parts: Buffer[] = [singleSegmentHeader(data.length)];
  if (data.length === 0) parts.push(blockHeader(0, true));
  for (let off = 0; off < data.length; off += ZSTD_MAX_BLOCK) {
    const end = Math.min(off + ZSTD_MAX_BLOCK, data.length);
    parts.push(blockHeader(end - off, end === data.length));
    parts.push(Buffer.from(data.buffer, data.byteOffset + off, end - off));
  }
  return Buffer.concat(parts);
}

function writeAll(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off);
}

/**
 * A `.zst` file sink. Small outputs (up to `maxBuffered` characters) are written on close as one
 * single-segment frame with its content size; larger ones switch to a streaming frame (no content
 * size, 128 KiB window) and are written block by block in bounded memory.
 */
export class ZstdRawFileSink implements TextSink {
  private chunks: string[] = [];
  private pending = 0;
  private fd: number | null = null;
  private carry: Buffer = Buffer.alloc(0);
  private closed = false;

  constructor(
    readonly filePath: string,
    private readonly maxBuffered = 16 << 20,
  ) {
    mkdirSync(path.dirname(filePath), { recursive: true });
  }

  write(text: string): void {
    if (this.closed) throw new Error(`write after close: ${this.filePath}`);
    this.chunks.push(text);
    this.pending += text.length;
    if (this.fd === null && this.pending > this.maxBuffered) {
      this.fd = openSync(this.filePath, "w");
      writeAll(this.fd, streamingHeader());
    }
    if (this.fd !== null && this.pending >= 1 << 20) this.drain(false);
  }

  private drain(final: boolean): void {
    const fd = this.fd as number;
    const data = Buffer.concat([this.carry, Buffer.from(this.chunks.join(""), "utf8")]);
    this.chunks = [];
    this.pending = 0;
    let off = 0;
    while (data.length - off > ZSTD_MAX_BLOCK || (final && data.length - off > 0)) {
      const end = Math.min(off + ZSTD_MAX_BLOCK, data.length);
      const last = final && end === data.length;
      writeAll(fd, blockHeader(end - off, last));
      writeAll(fd, data.subarray(off, end));
      off = end;
      if (last) {
        this.carry = Buffer.alloc(0);
        return;
      }
    }
    if (final) {
      writeAll(fd, blockHeader(0, true));
      this.carry = Buffer.alloc(0);
      return;
    }
    this.carry = Buffer.from(data.subarray(off));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd === null) {
      const data = Buffer.from(this.chunks.join(""), "utf8");
      this.chunks = [];
      const fd = openSync(this.filePath, "w");
      try {
        writeAll(fd, encodeZstdRawFrame(data));
      } finally {
        closeSync(fd);
      }
      return;
    }
    this.drain(true);
    closeSync(this.fd);
    this.fd = null;
  }
}
