import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/helpers/tmp.js";
import { encodeZstdRawFrame } from "../../demo/zstd-frame.js";
import { FileByteSource, READ_CHUNK_BYTES, ZstdByteSource, type ByteSource } from "./byte-source.js";
import { DEFAULT_MAX_LINE_BYTES, readLines } from "./jsonl-reader.js";

/** A source of `size` bytes made on demand: nothing is held but the requested read. */
class GeneratedSource implements ByteSource {
  maxRead = 0;
  constructor(
    readonly size: number,
    private readonly byteAt: (i: number) => number,
  ) {}
  read(position: number, length: number): Buffer {
    const n = Math.max(0, Math.min(length, READ_CHUNK_BYTES, this.size - position));
    this.maxRead = Math.max(this.maxRead, n);
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.byteAt(position + i);
    return out;
  }
  close(): void {}
}

describe("byte sources", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("a file's reads give its bytes whether they fall inside the first block, across its end or past it", () => {
    const t = tempDir("recall-bytes-");
    cleanup = t.cleanup;
    const file = path.join(t.dir, "f.jsonl");
    const content = Buffer.from(Array.from({ length: 3 * READ_CHUNK_BYTES + 123 }, (_, i) => (i * 7) % 251));
    writeFileSync(file, content);
    const source = new FileByteSource(file);
    try {
      const reads: [number, number][] = [
        [0, 4096],
        [0, READ_CHUNK_BYTES],
        [100, 50],
        [READ_CHUNK_BYTES - 10, 20],
        [0, 10],
        [2 * READ_CHUNK_BYTES, READ_CHUNK_BYTES],
        [3 * READ_CHUNK_BYTES, READ_CHUNK_BYTES],
      ];
      for (const [at, length] of reads) {
        const want = content.subarray(at, Math.min(content.length, at + Math.min(length, READ_CHUNK_BYTES)));
        expect(source.read(at, length).equals(want)).toBe(true);
      }
    } finally {
      source.close();
    }
  });

  it("reads a 20 MB line in bounded calls: never assembled, counted once, its bytes handed over for retention", () => {
    const huge = 20 * 1024 * 1024;
    const first = Buffer.from('{"a":1}\n');
    const last = Buffer.from('{"z":2}\n');
    const size = first.length + huge + 1 + last.length;
    const source = new GeneratedSource(size, (i) => {
      if (i < first.length) return first[i]!;
      if (i < first.length + huge) return 0x78; // "x"
      if (i === first.length + huge) return 0x0a;
      return last[i - first.length - huge - 1]!;
    });
    let offset = 0;
    let discarding = null;
    const lines: string[] = [];
    const oversized: { offset: number; length: number }[] = [];
    let retained = 0;
    let calls = 0;
    while (offset < size) {
      const r = readLines(source, { offset, maxBytes: 256 * 1024, discarding, keepRaw: true });
      calls += 1;
      // A line begun within the budget is assembled up to the maximum line size, no further.
      expect(r.bytesRead).toBeLessThanOrEqual(256 * 1024 + DEFAULT_MAX_LINE_BYTES + 2 * READ_CHUNK_BYTES);
      lines.push(...r.lines.map((l) => l.text));
      oversized.push(...r.oversized);
      for (const piece of r.raw) {
        expect(piece.offset).toBe(retained);
        retained += piece.bytes.length;
      }
      offset = r.nextOffset;
      discarding = r.discarding;
    }
    expect(lines).toEqual(['{"a":1}', '{"z":2}']);
    expect(oversized).toEqual([{ offset: first.length, length: huge + 1 }]);
    expect(retained).toBe(size);
    expect(source.maxRead).toBeLessThanOrEqual(READ_CHUNK_BYTES);
    expect(calls).toBeGreaterThan(40);
  });

  it("decodes concatenated zstd frames as one stream, forward, restarting only when asked to go back", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const a = Buffer.from('{"n":1}\n'.repeat(20_000));
    const b = Buffer.from('{"n":2}\n'.repeat(20_000));
    const file = path.join(t.dir, "rollout.jsonl.zst");
    writeFileSync(file, Buffer.concat([encodeZstdRawFrame(a), encodeZstdRawFrame(b)]));
    const source = new ZstdByteSource(file);
    try {
      expect(source.size).toBeNull();
      const all = Buffer.concat([a, b]);
      const mid = source.read(a.length - 4, 8);
      expect(mid.equals(all.subarray(a.length - 4, a.length + 4))).toBe(true);
      let position = 0;
      const parts: Buffer[] = [];
      for (;;) {
        const piece = source.read(position, READ_CHUNK_BYTES);
        if (piece.length === 0) break;
        parts.push(piece);
        position += piece.length;
      }
      expect(Buffer.concat(parts).equals(all)).toBe(true);
      expect(source.size).toBe(all.length);
      const lines = readLines(source, { offset: 0, maxBytes: 1 << 30 });
      expect(lines.lines).toHaveLength(40_000);
      expect(lines.exhausted).toBe(true);
    } finally {
      source.close();
    }
  });
});
