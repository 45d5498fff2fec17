import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from "node:zlib";

/**
 * How a retained raw chunk's bytes are compressed (recall_raw_chunks.codec). Brotli at quality 0
 * compresses transcript JSONL about twice as fast as deflate level 1 per chunk (and 3.5 times on
 * 30 KiB chunks) for about the same size, so new chunks use it; chunks written before schema
 * v4 stay raw deflate and are still read.
 */
export type RawCodec = "deflate" | "brotli";

export const WRITE_CODEC: RawCodec = "brotli";

const BROTLI_FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: 0 } };

export function compressRaw(bytes: Buffer): Buffer {
  return brotliCompressSync(bytes, BROTLI_FASTEST);
}

export function decompressRaw(data: Buffer, codec: string): Buffer {
  return codec === "brotli" ? brotliDecompressSync(data) : inflateRawSync(data);
}
