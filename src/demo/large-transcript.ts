import path from "node:path";
import { DEFAULT_BASE_TIME, DEMO_HOME, iso } from "./plan.js";
import { Rng } from "./rng.js";
import { TextModel } from "./text.js";
import { BufferedFileWriter } from "./writer.js";

/**
 * One big Claude Code transcript of (about) a given byte size, for memory benchmarks: streamed
 * through a buffered writer so a multi-gigabyte file never sits in memory, optionally with one
 * pathological single line of `hugeLineBytes` (a tool_result of that size) — real files reach 3 GB
 * and single lines of 12.8 M characters.
 */
export interface LargeTranscriptOptions {
  path: string;
  /** Target file size in bytes; the file is exactly this long when bytes ≥ ~1 KB. */
  bytes: number;
  seed?: number;
  /** Approximate size of an ordinary line (default 2048). */
  lineBytes?: number;
  /** Size of one pathological line (a tool_result); omitted = none. */
  hugeLineBytes?: number;
  /** Where the huge line goes, as a fraction of the file (default 0.5). */
  hugeLineAt?: number;
}

export interface LargeTranscriptResult {
  path: string;
  bytes: number;
  lines: number;
  sessionId: string;
  /** 0-based index of the huge line, or null. */
  hugeLine: number | null;
}

const CWD = `${DEMO_HOME}/code/big-monorepo`;

export async function generateLargeClaudeTranscript(
  options: LargeTranscriptOptions,
): Promise<LargeTranscriptResult> {
  const rng = new Rng(options.seed ?? 1);
  const text = new TextModel(rng, { tailSize: 2000 });
  const lineBytes = Math.max(256, Math.floor(options.lineBytes ?? 2048));
  const target = Math.max(0, Math.floor(options.bytes));
  const sessionId = rng.uuid4();
  // An ASCII text pool without JSON-escaped characters, so string length == UTF-8 length on disk.
  let pool = "";
  while (pool.length < 1 << 16) pool += text.paragraph(rng, 6, 0).replace(/[^\x20-\x7e]|["\\`]/g, " ") + " ";
  const poolText = (n: number, at: number): string => {
    let out = "";
    let i = at % pool.length;
    while (out.length < n) {
      const take = Math.min(n - out.length, pool.length - i);
      out += pool.slice(i, i + take);
      i = 0;
    }
    return out;
  };

  const out = new BufferedFileWriter(options.path, 4 << 20);
  let written = 0;
  let lines = 0;
  let parent: string | null = null;
  let clock = DEFAULT_BASE_TIME;
  let hugeLine: number | null = null;
  const hugeAt = options.hugeLineBytes !== undefined ? Math.floor(target * (options.hugeLineAt ?? 0.5)) : -1;
  let sinceYield = 0;

  const envelope = (type: "user" | "assistant", content: unknown, uuid: string): string => {
    clock += 1000 + (rng.u32() % 30_000);
    const base = {
      parentUuid: parent,
      isSidechain: false,
      userType: "external",
      cwd: CWD,
      sessionId,
      version: "2.1.284",
      gitBranch: "main",
    };
    const rec =
      type === "user"
        ? { ...base, type, message: { role: "user", content }, uuid, timestamp: iso(clock) }
        : {
            ...base,
            message: {
              id: `msg_01${rng.base62(22)}`,
              type: "message",
              role: "assistant",
              model: "claude-sonnet-4-5",
              content,
              stop_reason: "end_turn",
              stop_sequence: null,
            },
            requestId: `req_011C${rng.base62(20)}`,
            type,
            uuid,
            timestamp: iso(clock),
          };
    return JSON.stringify(rec) + "\n";
  };

  const envelopeSize = new Map<string, number>();
  /** A line whose total length is exactly `size` (text padded), or null when `size` is too small. */
  const lineOfSize = (size: number, huge: boolean): string | null => {
    const uuid = rng.uuid4();
    const kind = huge ? 2 : lines % 3;
    const make = (n: number): string => {
      const body = poolText(n, rng.u32());
      if (kind === 0) return envelope("user", body, uuid);
      if (kind === 1) return envelope("assistant", [{ type: "text", text: body }], uuid);
      return envelope(
        "user",
        [{ type: "tool_result", tool_use_id: `toolu_01${rng.base62(22)}`, content: body, is_error: false }],
        uuid,
      );
    };
    // Envelope length is constant per (kind, root line?): probe once, then reuse.
    const key = `${kind}:${parent === null ? "root" : "child"}`;
    let empty = envelopeSize.get(key);
    if (empty === undefined) {
      const probeClock = clock;
      empty = make(0).length;
      clock = probeClock;
      envelopeSize.set(key, empty);
    }
    if (size < empty + 1) return null;
    const line = make(size - empty);
    parent = uuid;
    return line;
  };

  while (written < target) {
    const remaining = target - written;
    const huge = hugeAt >= 0 && hugeLine === null && written >= hugeAt;
    const size = huge
      ? Math.min(options.hugeLineBytes as number, remaining)
      : remaining < 2 * lineBytes
        ? remaining
        : lineBytes + (rng.u32() % lineBytes) - (lineBytes >> 1);
    const line = lineOfSize(size, huge);
    if (line === null) break;
    if (huge) hugeLine = lines;
    out.write(line);
    written += line.length;
    lines++;
    sinceYield += line.length;
    if (sinceYield >= 64 << 20) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  out.close();
  return { path: path.resolve(options.path), bytes: out.bytesWritten, lines, sessionId, hugeLine };
}
