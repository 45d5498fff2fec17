import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { CLI } from "./cli.js";

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request with full control of the headers (Host included, which fetch does not allow),
 * always to 127.0.0.1:<port> whatever Host says.
 */
export function httpRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
        // A connection of its own: a pooled keep-alive socket the server closed while a test
        // blocked the event loop (spawnSync) would fail the next request with "socket hang up".
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Spends a login URL: the `name=value` cookie pair the server set. */
export async function login(loginUrl: string): Promise<string> {
  const url = new URL(loginUrl);
  const answer = await httpRequest(Number(url.port), `${url.pathname}${url.search}`);
  if (answer.status !== 303) throw new Error(`login failed: ${answer.status} ${answer.body}`);
  const setCookie = answer.headers["set-cookie"]?.[0] ?? "";
  return setCookie.split(";")[0]!;
}

export interface ServeProcess {
  proc: ChildProcess;
  loginUrl: string;
  origin: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM, resolving with the exit code. */
  stop: () => Promise<number | null>;
}

/** Starts the compiled `recall <args>` (serve or start) and waits for the dashboard URL it prints. */
export function startServe(
  env: Record<string, string>,
  args: string[] = ["serve", "--port", "0"],
  timeoutMs = 60_000,
): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGTERM");
      reject(new Error(`no dashboard URL within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`recall ${args.join(" ")} exited ${code} before serving\nstdout: ${out}\nstderr: ${err}`),
      );
    });
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /Dashboard: (http:\/\/\S+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      const url = new URL(match[1]!);
      resolve({
        proc,
        loginUrl: match[1]!,
        origin: url.origin,
        port: Number(url.port),
        stdout: () => out,
        stderr: () => err,
        stop: () => {
          if (proc.exitCode === null) proc.kill("SIGTERM");
          return exited;
        },
      });
    });
  });
}
