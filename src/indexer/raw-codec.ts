import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from "node:zlib";

/**
 * How a retained raw chunk's bytes are stored (recall_raw_chunks.codec): brotli at quality 1.
 * Brotli's fastest levels compress transcript JSONL about twice as fast as deflate level 1 per
 * chunk for about the same size. Quality 1 is as fast as 0 there and smaller, on the 1M bench
 * corpora: 0.256 of the bytes against 0.273, 460 against 363 MB/s (Zipf, 42 KiB chunks); 0.388
 * against 0.405, 134 against 145 MB/s (demo, 3.5 KiB chunks). Quality 2 and up cost a third more
 * time. Below 1 KiB (opencode's storage files and rows) a call costs about 12 µs whatever the
 * size and saves only a quarter of the bytes, so those stay as they are: at 100k messages, 15k
 * such chunks cost 0.12 s of a 8.7 s backfill to save 1.2 % of the index. Chunks written before
 * schema v4 are raw deflate and still read.
 */
export type RawCodec = "deflate" | "brotli" | "none";

const STORE_BELOW = 1024;
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };

export function compressRaw(bytes: Buffer): { data: Buffer; codec: RawCodec } {
  if (bytes.length < STORE_BELOW) return { data: bytes, codec: "none" };
  return { data: brotliCompressSync(bytes, BROTLI_FAST), codec: "brotli" };
}

export function decompressRaw(data: Buffer, codec: string): Buffer {
  if (codec === "none") return data;
  return codec === "brotli" ? brotliDecompressSync(data) : inflateRawSync(data);
}
