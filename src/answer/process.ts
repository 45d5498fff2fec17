import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";

export type Env = Readonly<Record<string, string | undefined>>;

/** Output kept from one provider process; anything beyond is dropped, never buffered. */
export const MAX_STDOUT_BYTES = 1024 * 1024;
const MAX_STDERR_BYTES = 16 * 1024;

/** The absolute path of an executable `name` on env.PATH, or null (a provider's "binary present"). */
export function findOnPath(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here, or not executable: keep looking
    }
  }
  return null;
}

export interface ProcessRequest {
  /** Absolute path from findOnPath; spawned directly with an argument array, never through a shell. */
  command: string;
  args: string[];
  cwd: string;
  env: Env;
  /** Written to stdin, which is then closed (prompts travel here, not in argv). */
  stdin?: string;
  timeoutMs: number;
  /** Ends the process (its whole group) early: the caller cancelled, or the answer's deadline passed. */
  signal?: AbortSignal;
  /**
   * Reads each complete stdout line as it arrives; a returned reason ends the process group at
   * once (a tool call or a second model turn in a CLI's event stream), before it goes further.
   */
  watch?: (line: string) => string | undefined;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The process could not start at all (ENOENT, EACCES, ...). */
  spawnError?: string;
  /** stdout went past MAX_STDOUT_BYTES and was cut. */
  truncated: boolean;
  /** Why `watch` ended the process, when it did. */
  stoppedBy?: string;
}

/**
 * Kills the whole process group: provider CLIs start helpers (MCP servers, sandboxes, node
 * wrappers) that would outlive a plain kill of the parent.
 */
export function killTree(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

class BoundedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  /** Keeps what fits and returns it (empty once the bound is reached). */
  push(chunk: Buffer): Buffer {
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated = true;
      return chunk.subarray(0, 0);
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
    return part;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * Provider processes still running. Their own process groups do not get the terminal's signals,
 * so they are ended when this process exits rather than left to finish a paid generation.
 */
const live = new Set<ChildProcess>();
let exitHook = false;

function start(request: ProcessRequest): ChildProcess {
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => live.forEach(killTree));
  }
  const child = spawn(request.command, request.args, {
    cwd: request.cwd,
    env: request.env,
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group, so a timeout can kill everything it started.
    detached: true,
    shell: false,
    windowsHide: true,
  });
  live.add(child);
  child.once("close", () => live.delete(child));
  child.once("error", () => live.delete(child));
  return child;
}

/** Calls `stop` once when `signal` aborts (at once if it already has); returns the unsubscribe. */
function onAbort(signal: AbortSignal | undefined, stop: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    stop();
    return () => {};
  }
  signal.addEventListener("abort", stop, { once: true });
  return () => signal.removeEventListener("abort", stop);
}

/**
 * Runs one provider command to completion, timeout or abort, with bounded output capture. An
 * aborted run ends as a timed-out one does; the caller knows which from its signal.
 */
export function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const out = new BoundedBuffer(MAX_STDOUT_BYTES);
    const err = new BoundedBuffer(MAX_STDERR_BYTES);
    let timedOut = false;
    let settled = false;
    let stoppedBy: string | undefined;
    let child: ChildProcess;
    try {
      child = start(request);
    } catch (error) {
      const spawnError = (error as Error).message;
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut, spawnError, truncated: false });
      return;
    }
    const stop = () => {
      timedOut = true;
      killTree(child);
    };
    // Lines of the kept stdout only, so the pending text is bounded like the capture.
    let pending = "";
    const decoder = new StringDecoder("utf8");
    const watchChunk = (part: Buffer) => {
      if (!request.watch || stoppedBy !== undefined) return;
      pending += decoder.write(part);
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        const reason = request.watch(line);
        if (reason !== undefined) {
          stoppedBy = reason;
          killTree(child);
          return;
        }
      }
    };
    const timer = setTimeout(stop, request.timeoutMs);
    const unsubscribe = onAbort(request.signal, stop);
    const settle = (code: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      resolve({
        code,
        signal,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        spawnError,
        truncated: out.truncated,
        ...(stoppedBy !== undefined ? { stoppedBy } : {}),
      });
    };
    child.stdout?.on("data", (chunk: Buffer) => watchChunk(out.push(chunk)));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    // A spawn failure may come without a later "close".
    child.on("error", (error) => settle(null, null, error.message));
    child.stdin?.on("error", () => {
      // The CLI may exit before reading its prompt; its exit status tells what happened.
    });
    child.stdin?.end(request.stdin ?? "");
    child.on("close", (code, signal) => {
      // A helper left in the group after a normal exit goes too.
      if (!timedOut) killTree(child);
      // A last line without its newline is still read.
      if (request.watch && stoppedBy === undefined && pending) {
        const reason = request.watch(pending + decoder.end());
        if (reason !== undefined) stoppedBy = reason;
      }
      settle(code, signal);
    });
  });
}

/**
 * A line-delimited JSON conversation with a long-running probe (codex app-server, claude's
 * stream-json control channel): send requests, wait for the answers `done` accepts, then end the
 * process. Resolves with every JSON line read, or with timedOut when the answers never came.
 */
export function jsonLineSession(
  request: ProcessRequest & {
    messages: unknown[];
    /** True once the lines read so far hold everything the probe needs. */
    done: (lines: unknown[]) => boolean;
    /** Called with each parsed line; may return follow-up messages to send (pagination). */
    onLine?: (line: unknown) => unknown[] | void;
  },
): Promise<{ lines: unknown[]; timedOut: boolean; error?: string; code: number | null }> {
  return new Promise((resolve) => {
    const lines: unknown[] = [];
    let pending = "";
    let received = 0;
    let finished = false;
    let child: ChildProcess;
    try {
      child = start(request);
    } catch (error) {
      resolve({ lines, timedOut: false, error: (error as Error).message, code: null });
      return;
    }
    // Declared before finish can run: a signal that has already aborted calls it at once.
    let unsubscribe = () => {};
    const finish = (timedOut: boolean, code: number | null = null, error?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      unsubscribe();
      killTree(child);
      resolve({ lines, timedOut, error, code });
    };
    const timer = setTimeout(() => finish(true), request.timeoutMs);
    unsubscribe = onAbort(request.signal, () => finish(true));
    const send = (message: unknown) => {
      if (!child.stdin?.writable) return;
      child.stdin.write(`${JSON.stringify(message)}\n`);
    };
    child.stdin?.on("error", () => {
      // closed early: the exit handler reports it
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_STDOUT_BYTES) return finish(false, null, "probe output exceeded its bound");
      pending += chunk.toString("utf8");
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const raw = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (!raw.startsWith("{")) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          continue;
        }
        lines.push(parsed);
        const more = request.onLine?.(parsed);
        if (more) for (const m of more) send(m);
      }
      if (request.done(lines)) finish(false);
    });
    child.stderr?.resume();
    child.on("error", (error) => finish(false, null, error.message));
    child.on("close", (code) => finish(false, code));
    for (const m of request.messages) send(m);
  });
}
