import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { Decompress } from "fzstd";

/** At most this many bytes are read from a file per read call (the spec's 64 KiB read cap). */
export const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Something bytes can be read from by position: a file, a zstd-compressed file (decoded as a
 * stream), or the retained raw chunks of a file the CLI deleted. Reads are bounded by the
 * caller; nothing here holds a whole file.
 */
export interface ByteSource {
  /** Total size when known (a zstd stream's is known only once decoded to the end). */
  readonly size: number | null;
  /** Up to `length` bytes at `position`; an empty buffer at the end. */
  read(position: number, length: number): Buffer;
  close(): void;
}

/** A file opened read-only (flag "r": never created, truncated or written). */
export class FileByteSource implements ByteSource {
  private readonly fd: number;
  readonly size: number;
  readonly mtimeMs: number;

  constructor(file: string) {
    this.fd = openSync(file, "r");
    const stat = fstatSync(this.fd);
    this.size = stat.size;
    this.mtimeMs = Math.floor(stat.mtimeMs);
  }

  /**
   * The file's first block, kept while reads stay inside it: a file's first poll reads its head
   * for the head hash (4 KiB), a Codex rollout's for its session_meta (64 KiB), then its first
   * lines — one read instead of three (measured at 1M records: 0.9 s of 95 s went to the
   * repeated head reads).
   */
  private first: Buffer | null = null;

  read(position: number, length: number): Buffer {
    const want = Math.max(0, Math.min(length, READ_CHUNK_BYTES, this.size - position));
    if (want === 0) return Buffer.alloc(0);
    if (position === 0 && this.first === null)
      this.first = this.readAt(0, Math.min(READ_CHUNK_BYTES, this.size));
    if (this.first !== null) {
      if (position + want <= this.first.length) return this.first.subarray(position, position + want);
      this.first = null;
    }
    return this.readAt(position, want);
  }

  private readAt(position: number, want: number): Buffer {
    const buffer = Buffer.allocUnsafe(want);
    const n = readSync(this.fd, buffer, 0, want, position);
    return n === want ? buffer : buffer.subarray(0, n);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * A `.jsonl.zst` file decoded as a forward-only stream with fzstd (Node 20 has no zstd). Reads
 * must move forward; a read behind the decoder's position restarts decoding from the start
 * (callers avoid it by keeping one instance per file while they read it). Several concatenated
 * frames decode as one stream. Memory: one 64 KiB compressed read plus what it expands to.
 */
export class ZstdByteSource implements ByteSource {
  private fd: number;
  private readonly file: string;
  private decoder!: Decompress;
  private compressedPosition = 0;
  private readonly compressedSize: number;
  /** Decoded bytes not consumed yet, starting at `queueStart`. */
  private queue: Buffer[] = [];
  private queueStart = 0;
  private queueBytes = 0;
  private ended = false;
  private total: number | null = null;
  /** Why decoding stopped early (corrupt data, or a file still being compressed), else null. */
  failure: string | null = null;
  readonly mtimeMs: number;

  constructor(file: string) {
    this.file = file;
    this.fd = openSync(file, "r");
    const stat = fstatSync(this.fd);
    this.compressedSize = stat.size;
    this.mtimeMs = Math.floor(stat.mtimeMs);
    this.reset();
  }

  /** Size of the compressed file. */
  get storedSize(): number {
    return this.compressedSize;
  }

  get size(): number | null {
    return this.total;
  }

  private reset(): void {
    this.compressedPosition = 0;
    this.queue = [];
    this.queueStart = 0;
    this.queueBytes = 0;
    this.ended = false;
    this.failure = null;
    this.decoder = new Decompress((data) => {
      if (data.length === 0) return;
      // fzstd may reuse its output buffer; copy what we keep.
      this.queue.push(Buffer.from(data));
      this.queueBytes += data.length;
    });
  }

  /** Decodes more input; false at the end of the compressed file. */
  private pump(): boolean {
    if (this.ended) return false;
    const want = Math.min(READ_CHUNK_BYTES, this.compressedSize - this.compressedPosition);
    if (want <= 0) {
      this.ended = true;
      this.total = this.queueStart + this.queueBytes;
      return false;
    }
    const chunk = Buffer.allocUnsafe(want);
    const n = readSync(this.fd, chunk, 0, want, this.compressedPosition);
    this.compressedPosition += n;
    const final = this.compressedPosition >= this.compressedSize;
    try {
      this.decoder.push(n === want ? chunk : chunk.subarray(0, n), final);
    } catch (error) {
      // Undecodable from here (corrupt, or cut short while Codex writes it): what decoded so
      // far is the file's readable content until it changes; one bad file stops nothing else.
      this.failure = error instanceof Error ? error.message : String(error);
      this.ended = true;
      this.total = this.queueStart + this.queueBytes;
      return false;
    }
    if (final) {
      this.ended = true;
      this.total = this.queueStart + this.queueBytes;
    }
    return true;
  }

  /** Drops decoded bytes before `position`. */
  private discardBefore(position: number): void {
    while (this.queue.length > 0 && this.queueStart < position) {
      const head = this.queue[0]!;
      const drop = position - this.queueStart;
      if (drop >= head.length) {
        this.queue.shift();
        this.queueStart += head.length;
        this.queueBytes -= head.length;
      } else {
        this.queue[0] = head.subarray(drop);
        this.queueStart += drop;
        this.queueBytes -= drop;
      }
    }
  }

  read(position: number, length: number): Buffer {
    if (position < this.queueStart) {
      this.reset();
    }
    const want = Math.min(length, READ_CHUNK_BYTES);
    for (;;) {
      this.discardBefore(position);
      if (this.queueStart === position && this.queueBytes >= want) break;
      if (this.queueStart > position) break; // cannot happen after discardBefore, defensive
      if (!this.pump()) break;
    }
    this.discardBefore(position);
    if (this.queueStart !== position || this.queueBytes === 0) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    let got = 0;
    for (const piece of this.queue) {
      if (got >= want) break;
      const take = Math.min(piece.length, want - got);
      parts.push(take === piece.length ? piece : piece.subarray(0, take));
      got += take;
    }
    return parts.length === 1 ? Buffer.from(parts[0]!) : Buffer.concat(parts, got);
  }

  close(): void {
    closeSync(this.fd);
    this.queue = [];
  }

  toString(): string {
    return `zstd:${this.file}`;
  }
}

/** Bytes of a file that exist only as retained chunks in the index. */
export class CallbackByteSource implements ByteSource {
  constructor(
    readonly size: number | null,
    private readonly reader: (position: number, length: number) => Buffer,
  ) {}

  read(position: number, length: number): Buffer {
    return this.reader(position, Math.min(length, READ_CHUNK_BYTES));
  }

  close(): void {}
}
