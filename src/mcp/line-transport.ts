import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP over stdio with a bounded line reader. The SDK's StdioServerTransport keeps a whole
 * request line in memory up to 10 MiB and, past that, closes the transport: no reply, nothing on
 * stderr, every later request unanswered, and a broker gives up its role with the server. Here a
 * line over the bound is discarded as it streams in (memory stays bounded), answered with a
 * JSON-RPC error (with the request's id when its first or last bytes hold it, so the caller's
 * request fails at once instead of waiting), said in one line on stderr, and the next line is
 * read as usual. A line that is not JSON-RPC is answered with a parse error too.
 */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** Bytes kept of a discarded line's start and end, where a request's id is. */
const EDGE_BYTES = 512;

type RequestId = string | number | null;

export interface LineTransportOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  maxLineBytes?: number;
  /** One content-free line about a refused request (stderr). */
  log?: (line: string) => void;
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream;
  private readonly max: number;
  private readonly log: (line: string) => void;
  /** The line read so far (while it is within the bound). */
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while a line over the bound is being skipped: its first bytes, its last bytes and length. */
  private discarding: { head: Buffer; tail: Buffer; bytes: number } | null = null;
  private closed = false;

  constructor(options: LineTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.max = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (;;) {
      const newline = data.indexOf(0x0a);
      const piece = newline < 0 ? data : data.subarray(0, newline);
      this.take(piece);
      if (newline < 0) return;
      this.endLine();
      data = data.subarray(newline + 1);
    }
  };

  private readonly onError = (error: Error) => this.onerror?.(error);
  private readonly onEnd = () => void this.close();

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onError);
    this.input.on("end", this.onEnd);
  }

  /** Adds bytes of the current line, or keeps only its edges once it is over the bound. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.discarding) {
      const d = this.discarding;
      d.bytes += piece.length;
      d.tail = edge(Buffer.concat([d.tail, piece]), "end");
      return;
    }
    if (this.size + piece.length <= this.max) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const line = Buffer.concat([...this.parts, piece]);
    this.discarding = { head: edge(line, "start"), tail: edge(line, "end"), bytes: line.length };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    if (this.discarding) {
      const { head, tail, bytes } = this.discarding;
      this.discarding = null;
      const id = requestId(head, tail);
      this.log(`refused a request line of ${bytes} bytes (over ${this.max}); the connection stays open`);
      this.reply(
        id,
        -32600,
        `request line of ${bytes} bytes is over the ${this.max}-byte limit; it was not read`,
      );
      return;
    }
    const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error as Error);
      this.reply(
        requestId(Buffer.from(line.slice(0, EDGE_BYTES)), Buffer.from(line.slice(-EDGE_BYTES))),
        -32700,
        "not a JSON-RPC message",
      );
      return;
    }
    this.onmessage?.(message);
  }

  private reply(id: RequestId, code: number, message: string): void {
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onError);
    this.input.off("end", this.onEnd);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.parts = [];
    this.discarding = null;
    this.onclose?.();
  }
}

function edge(bytes: Buffer, side: "start" | "end"): Buffer {
  if (bytes.length <= EDGE_BYTES) return Buffer.from(bytes);
  return Buffer.from(
    side === "start" ? bytes.subarray(0, EDGE_BYTES) : bytes.subarray(bytes.length - EDGE_BYTES),
  );
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The top-level id as a request's first member (after "jsonrpc"), or as its last. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/** The id of a request from its first and last bytes, or null when neither shows it. */
function requestId(head: Buffer, tail: Buffer): RequestId {
  const found =
    ID_FIRST.exec(head.toString("utf8")) ?? ID_LAST.exec(tail.toString("utf8").replace(/\r$/, ""));
  if (!found) return null;
  try {
    return JSON.parse(found[1]!) as string | number;
  } catch {
    return null;
  }
}
