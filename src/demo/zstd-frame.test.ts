import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decompress } from "fzstd";
import { afterAll, describe, expect, it } from "vitest";
import { Rng } from "./rng.js";
import { ZSTD_MAX_BLOCK, ZstdRawFileSink, encodeZstdRawFrame } from "./zstd-frame.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "recall-zstd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ZSTD_BIN = "/usr/bin/zstd";

function sample(bytes: number, seed = 7): Buffer {
  const rng = new Rng(seed);
  let s = "";
  while (s.length < bytes) s += `{"line":${s.length},"text":"${rng.base64(40)} ü 日本"}\n`;
  return Buffer.from(s, "utf8").subarray(0, bytes);
}

/** Sizes around every Frame_Content_Size width and block boundary. */
const SIZES = [
  0,
  1,
  255,
  256,
  257,
  65535,
  65791,
  65792,
  70000,
  ZSTD_MAX_BLOCK - 1,
  ZSTD_MAX_BLOCK,
  ZSTD_MAX_BLOCK + 1,
  3 * ZSTD_MAX_BLOCK,
  1_000_000,
];

describe("zstd raw frames", () => {
  it("starts with the zstd magic number", () => {
    const frame = encodeZstdRawFrame(Buffer.from("hello"));
    expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
  });

  it.each(SIZES)("round-trips %i bytes through fzstd (single-segment frame)", (size) => {
    const data = sample(size);
    const frame = encodeZstdRawFrame(data);
    expect(Buffer.from(decompress(frame)).equals(data)).toBe(true);
  });

  it("streams large outputs (no content size) and fzstd still round-trips", () => {
    const data = sample(3 * ZSTD_MAX_BLOCK + 12345);
    const file = path.join(dir, "stream.jsonl.zst");
    const sink = new ZstdRawFileSink(file, 1000); // force streaming mode
    const text = data.toString("utf8");
    for (let i = 0; i < text.length; i += 9999) sink.write(text.slice(i, i + 9999));
    sink.close();
    const out = Buffer.from(decompress(readFileSync(file)));
    expect(out.toString("utf8")).toBe(text);
  });

  it("streaming frame whose length is an exact block multiple ends with an empty last block", () => {
    const text = "x".repeat(2 * ZSTD_MAX_BLOCK);
    const file = path.join(dir, "exact.jsonl.zst");
    const sink = new ZstdRawFileSink(file, 10);
    sink.write(text);
    sink.close();
    expect(Buffer.from(decompress(readFileSync(file))).toString("utf8")).toBe(text);
  });

  it("the reference zstd CLI accepts both frame kinds", () => {
    if (!existsSync(ZSTD_BIN)) {
      console.warn(`[skip] ${ZSTD_BIN} is absent: zstd -d cross-check skipped (fzstd round-trip still ran).`);
      return;
    }
    for (const [name, maxBuffered] of [
      ["single", 1 << 30],
      ["streaming", 100],
    ] as const) {
      for (const size of [0, 300, 70000, 2 * ZSTD_MAX_BLOCK + 5]) {
        const data = sample(size, size + 1);
        const file = path.join(dir, `${name}-${size}.jsonl.zst`);
        const sink = new ZstdRawFileSink(file, maxBuffered);
        sink.write(data.toString("utf8"));
        sink.close();
        const out = execFileSync(ZSTD_BIN, ["-d", "-c", "-q", file], { maxBuffer: 64 << 20 });
        expect(out.equals(Buffer.from(data.toString("utf8"), "utf8"))).toBe(true);
      }
    }
    const one = path.join(dir, "one.zst");
    writeFileSync(one, encodeZstdRawFrame(Buffer.from("abc\n")));
    execFileSync(ZSTD_BIN, ["-t", "-q", one]);
  });
});
