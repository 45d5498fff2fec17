import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { errorFromParts, errorParts } from "../core/errors.js";
import { makeRecallHome } from "../store/private-files.js";
import { pauseSync } from "../core/clock.js";

/**
 * Broker election. Exactly one recall process writes the index: the one that holds an
 * exclusive listen on RECALL_HOME/broker.sock (Node 20 has no flock; a Unix socket can be
 * listened on by one process only). The same socket is the authenticated local channel other
 * processes use to ask the broker for work (e.g. reindex): every request carries the token
 * from RECALL_HOME/broker.token, a 0600 file only this user can read.
 */
export const SOCKET_FILE = "broker.sock";
export const TOKEN_FILE = "broker.token";

export interface BrokerRequest {
  command: string;
  args?: Record<string, unknown>;
}

/**
 * Answers one request. `progress` streams intermediate figures to the asker (one JSON line
 * each) before the final result.
 */
export type RequestHandler = (
  request: BrokerRequest,
  progress: (figures: unknown) => void,
) => Promise<unknown>;

/** Unix socket paths are limited to about 104 bytes; a longer RECALL_HOME gets a socket in the temp folder. */
const MAX_SOCKET_PATH = 100;

/** Where the broker listens for RECALL_HOME: broker.sock inside it when the path fits. */
export function socketPathFor(home: string): string {
  const inside = path.join(home, SOCKET_FILE);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const digest = createHash("sha256").update(path.resolve(home)).digest("hex").slice(0, 16);
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return path.join(os.tmpdir(), `recall-${uid}-${digest}.sock`);
}

export interface BrokerHandle {
  /** True while this process is the broker. */
  readonly isBroker: boolean;
  /** Resolves when this process becomes the broker (immediately if it already is). */
  elected(): Promise<void>;
  close(): Promise<void>;
}

export interface ElectionOptions {
  home: string;
  /** Runs once this process wins; the returned function stops the work when the broker closes. */
  onElected: () => (() => Promise<void>) | void;
  onRequest?: RequestHandler;
  /** How often a follower retries to take over (default 1 s). */
  retryMs?: number;
}

/** 32 random bytes, hex: what broker.token holds. */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;
/** A token file that holds no token (one an older recall was killed writing) is replaced past this age. */
const TORN_TOKEN_MS = 1_000;

function readToken(file: string): string | null {
  try {
    const token = readFileSync(file, "utf8").trim();
    return TOKEN_SHAPE.test(token) ? token : null;
  } catch {
    return null;
  }
}

/**
 * The channel's shared secret, made on first use. It appears whole or not at all: written to a
 * file of this process's own, then hard-linked into place, which fails when another process
 * made it first (whose token is then read). Written in place, a process starting at the same
 * moment could read the file empty and hold "" as its token, and every request between the two
 * was refused as forbidden.
 */
function brokerToken(home: string): string {
  const file = path.join(home, TOKEN_FILE);
  for (;;) {
    const token = readToken(file);
    if (token !== null) {
      chmodSync(file, 0o600);
      return token;
    }
    const torn = statSync(file, { throwIfNoEntry: false });
    if (torn) {
      if (Date.now() - torn.mtimeMs <= TORN_TOKEN_MS) {
        pauseSync(20);
        continue;
      }
      rmSync(file, { force: true });
    }
    const own = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`;
    writeFileSync(own, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    try {
      linkSync(own, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(own, { force: true });
    }
  }
}

const TAKEOVER_FILE = "broker.takeover";
/** A takeover lock older than this was left by a process that died mid-takeover. */
const STALE_TAKEOVER_MS = 10_000;

function takeTakeoverLock(home: string): boolean {
  const file = path.join(home, TAKEOVER_FILE);
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs > STALE_TAKEOVER_MS) rmSync(file, { force: true });
    } catch {
      // Gone already.
    }
    return false;
  }
}

function releaseTakeoverLock(home: string): void {
  rmSync(path.join(home, TAKEOVER_FILE), { force: true });
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Is someone answering on the socket? A socket file nobody listens on is stale. */
function socketAlive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

function tryListen(server: net.Server, socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const onError = () => {
      server.removeListener("listening", onListening);
      resolve(false);
    };
    const onListening = () => {
      server.removeListener("error", onError);
      resolve(true);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(socketPath);
  });
}

export function electBroker(options: ElectionOptions): BrokerHandle {
  makeRecallHome(options.home);
  const socketPath = socketPathFor(options.home);
  const token = brokerToken(options.home);
  let server: net.Server | null = null;
  let stopWork: (() => Promise<void>) | void;
  let isBroker = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void)[] = [];

  const handleConnection = (socket: net.Socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > 1 << 20) return socket.destroy();
      const newline = buffer.indexOf("\n");
      if (newline === -1) return;
      const line = buffer.slice(0, newline);
      buffer = "";
      let message: { token?: unknown; request?: BrokerRequest };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return socket.end(`${JSON.stringify({ error: "malformed request" })}\n`);
      }
      if (typeof message.token !== "string" || !sameToken(message.token, token)) {
        return socket.end(`${JSON.stringify({ error: "forbidden" })}\n`);
      }
      const handler = options.onRequest;
      if (!handler || !message.request) return socket.end(`${JSON.stringify({ error: "no handler" })}\n`);
      const progress = (figures: unknown) => {
        if (!socket.destroyed) socket.write(`${JSON.stringify({ progress: figures })}\n`);
      };
      handler(message.request, progress).then(
        (result) => socket.end(`${JSON.stringify({ result })}\n`),
        // A caller's own mistake (NotFound, Validation…) keeps its kind across the channel.
        (error: unknown) => {
          const { message: text, kind } = errorParts(error);
          socket.end(`${JSON.stringify({ error: text, kind })}\n`);
        },
      );
    });
    socket.on("error", () => socket.destroy());
  };

  const attempt = async (): Promise<void> => {
    if (closed || isBroker) return;
    const candidate = net.createServer(handleConnection);
    if (!(await tryListen(candidate, socketPath))) {
      // Someone holds it, or a crashed broker left a stale socket file behind.
      if (!(await socketAlive(socketPath)) && takeTakeoverLock(options.home)) {
        // Only the holder of the takeover lock may remove the stale socket, so two followers
        // never both unlink and listen (which would leave two brokers).
        try {
          if (!(await socketAlive(socketPath))) {
            rmSync(socketPath, { force: true });
            if (await tryListen(candidate, socketPath)) return won(candidate);
          }
        } finally {
          releaseTakeoverLock(options.home);
        }
      }
      candidate.close();
      schedule();
      return;
    }
    won(candidate);
  };

  const won = (candidate: net.Server) => {
    if (closed) {
      candidate.close();
      return;
    }
    server = candidate;
    chmodSync(socketPath, 0o600);
    isBroker = true;
    stopWork = options.onElected();
    for (const w of wake) w();
    wake = [];
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void attempt(), options.retryMs ?? 1000);
  };

  void attempt();

  return {
    get isBroker() {
      return isBroker;
    },
    elected() {
      return isBroker ? Promise.resolve() : new Promise((resolve) => wake.push(resolve));
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (stopWork) await stopWork();
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => s.close(() => resolve()));
        server = null;
      }
      isBroker = false;
    },
  };
}

export interface AskOptions {
  /** Gives up when the broker sends nothing (no progress, no result) for this long (default 60 s). */
  timeoutMs?: number;
  onProgress?: (figures: unknown) => void;
}

/**
 * Sends one authenticated request to the running broker and waits for its result (progress
 * lines in between go to onProgress); null when no broker is running or it went away.
 */
export function askBroker(
  home: string,
  request: BrokerRequest,
  options: AskOptions | number = {},
): Promise<unknown> {
  const { timeoutMs = 60_000, onProgress } = typeof options === "number" ? { timeoutMs: options } : options;
  const socketPath = socketPathFor(home);
  const token = existsSync(socketPath) ? readToken(path.join(home, TOKEN_FILE)) : null;
  if (token === null) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffer = "";
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    let timer = setTimeout(
      () => finish(() => reject(new Error("the broker did not answer in time"))),
      timeoutMs,
    );
    const line = (text: string) => {
      let parsed: { result?: unknown; error?: string; kind?: string; progress?: unknown };
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        return finish(() => reject(new Error("the broker sent a malformed reply")));
      }
      if ("progress" in parsed) {
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(() => reject(new Error("the broker did not answer in time"))),
          timeoutMs,
        );
        onProgress?.(parsed.progress);
        return;
      }
      if (parsed.error) {
        const error = errorFromParts({ message: parsed.error, kind: parsed.kind });
        finish(() => reject(error));
      } else finish(() => resolve(parsed.result ?? null));
    };
    socket.setEncoding("utf8");
    socket.once("connect", () => socket.write(`${JSON.stringify({ token, request })}\n`));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while (!settled && (newline = buffer.indexOf("\n")) !== -1) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        line(text);
      }
    });
    // Connection refused (a stale socket) or the broker died mid-request: no broker.
    socket.once("error", () => finish(() => resolve(null)));
    socket.once("close", () => finish(() => resolve(null)));
  });
}
