import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from "node:zlib";

/**
 * How a retained raw chunk's bytes are stored (recall_raw_chunks.codec). Brotli at quality 0
 * compresses transcript JSONL about twice as fast as deflate level 1 per chunk (2.3 times on
 * 30 KiB Claude and Codex chunks) for about the same size. Below 1 KiB (opencode's storage files
 * and rows) a call costs about 12 µs whatever the size and saves only a quarter of the bytes, so
 * those stay as they are: at 100k messages, 15k such chunks cost 0.12 s of a 8.7 s backfill to
 * save 1.2 % of the index. Chunks written before schema v4 are raw deflate and still read.
 */
export type RawCodec = "deflate" | "brotli" | "none";

const STORE_BELOW = 1024;
const BROTLI_FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: 0 } };

export function compressRaw(bytes: Buffer): { data: Buffer; codec: RawCodec } {
  if (bytes.length < STORE_BELOW) return { data: bytes, codec: "none" };
  return { data: brotliCompressSync(bytes, BROTLI_FASTEST), codec: "brotli" };
}

export function decompressRaw(data: Buffer, codec: string): Buffer {
  if (codec === "none") return data;
  return codec === "brotli" ? brotliDecompressSync(data) : inflateRawSync(data);
}
