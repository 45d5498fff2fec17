import { closeSync, mkdirSync, openSync, utimesSync, writeSync } from "node:fs";
import path from "node:path";

/** Anything that accepts text and can be closed: a plain file, a zstd frame, or several at once. */
export interface TextSink {
  write(text: string): void;
  close(): void;
}

const DEFAULT_FLUSH_BYTES = 1 << 20;

/**
 * A synchronous buffered writer: strings accumulate until about `flushBytes` characters, then go to
 * disk in one fs.writeSync. Memory stays bounded by the buffer size (plus the largest single write),
 * so multi-gigabyte files can be produced without holding them.
 */
export class BufferedFileWriter implements TextSink {
  private readonly fd: number;
  private chunks: string[] = [];
  private pending = 0;
  private written = 0;
  private closed = false;

  constructor(
    readonly filePath: string,
    private readonly flushBytes = DEFAULT_FLUSH_BYTES,
  ) {
    mkdirSync(path.dirname(filePath), { recursive: true });
    this.fd = openSync(filePath, "w");
  }

  /** UTF-8 bytes flushed to disk so far (exact once closed). */
  get bytesWritten(): number {
    return this.written;
  }

  write(text: string): void {
    if (this.closed) throw new Error(`write after close: ${this.filePath}`);
    this.chunks.push(text);
    this.pending += text.length;
    if (this.pending >= this.flushBytes) this.flush();
  }

  flush(): void {
    if (this.chunks.length === 0) return;
    const data = Buffer.from(
      this.chunks.length === 1 ? (this.chunks[0] as string) : this.chunks.join(""),
      "utf8",
    );
    this.chunks = [];
    this.pending = 0;
    let off = 0;
    while (off < data.length) off += writeSync(this.fd, data, off, data.length - off);
    this.written += data.length;
  }

  /** `modifiedAt` (epoch ms): the file's mtime, as if written then (a transcript's last line). */
  close(modifiedAt?: number): void {
    if (this.closed) return;
    this.flush();
    closeSync(this.fd);
    this.closed = true;
    if (modifiedAt !== undefined) utimesSync(this.filePath, modifiedAt / 1000, modifiedAt / 1000);
  }
}

/** Writes every string to several sinks (e.g. a `.jsonl` and its `.jsonl.zst` twin). */
export class TeeSink implements TextSink {
  constructor(private readonly sinks: readonly TextSink[]) {}
  write(text: string): void {
    for (const s of this.sinks) s.write(text);
  }
  close(): void {
    for (const s of this.sinks) s.close();
  }
}

/** Writes a small file in one go, creating its folder. */
export function writeWholeFile(filePath: string, text: string | Uint8Array): void {
  mkdirSync(path.dirname(filePath), { recursive: true });
  const fd = openSync(filePath, "w");
  try {
    const data = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
  } finally {
    closeSync(fd);
  }
}
