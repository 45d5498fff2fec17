/**
 * The loopback HTTP API and dashboard server. node:http rather than a framework: a dozen GET routes,
 * custom strict query validation and a guard that must run before any routing, which a
 * framework's middleware order and lenient query parsing would only obscure.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createAuth, type Auth } from "./auth.js";
import { allowedHosts, fetchSiteAllowed, hostAllowed, originAllowed } from "./guard.js";
import { readCoverage } from "../app/status.js";
import { asDamagedIndex } from "../app/index-health.js";
import { send, sendError, sendJson, statusOf } from "./respond.js";
import type { HttpServices, Route } from "./route.js";
import { ROUTES } from "./routes/index.js";

export interface HttpServerOptions {
  services: HttpServices;
  /** Default 127.0.0.1; anything else is the caller's explicit choice (`recall serve --host`). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  routes?: readonly Route[];
  /** Told about server faults (no request content): the error's name only. */
  onFault?: (name: string) => void;
}

export interface RunningHttpServer {
  /** e.g. http://127.0.0.1:4123 */
  origin: string;
  port: number;
  /** The dashboard URL with the one-time login token. */
  loginUrl: string;
  close(): Promise<void>;
}

const MAX_URL_CHARS = 8192;

/**
 * The login step: `/?token=…` spends the token, sets the cookie, and redirects to the same page
 * without the token. A browser already logged in that opens the link again is just redirected.
 */
function login(auth: Auth, req: IncomingMessage, url: URL, res: ServerResponse): void {
  const token = url.searchParams.get("token") ?? "";
  const already = auth.authenticated(req);
  const cookie = !already && url.searchParams.getAll("token").length === 1 ? auth.login(token) : null;
  if (!already && !cookie) {
    return sendError(
      res,
      403,
      "this login link is invalid or was already used; restart `recall serve` for a new one",
    );
  }
  url.searchParams.delete("token");
  const rest = url.searchParams.toString();
  send(res, 303, "", "text/plain; charset=utf-8", {
    ...(cookie ? { "Set-Cookie": cookie } : {}),
    Location: `${url.pathname}${rest ? `?${rest}` : ""}`,
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: { auth: Auth; hosts: ReadonlySet<string>; services: HttpServices; routes: readonly Route[] },
): Promise<void> {
  // Order matters: nothing about the request is looked at further until these pass.
  if (!hostAllowed(req, ctx.hosts)) return sendError(res, 403, "forbidden host");
  if (!originAllowed(req, ctx.hosts)) return sendError(res, 403, "forbidden origin");
  if (!fetchSiteAllowed(req)) return sendError(res, 403, "forbidden: requested from another site or port");
  const rawUrl = req.url ?? "/";
  // Origin-form paths only: "//host/…" would parse as another authority, and so would "/\host/…"
  // (URL parsing reads a backslash in the path as a slash), so the path takes no raw backslash.
  // The query may: a browser sends `?q=C:\Users` as typed.
  if (
    rawUrl.length > MAX_URL_CHARS ||
    !rawUrl.startsWith("/") ||
    rawUrl.startsWith("//") ||
    rawUrl.split("?", 1)[0]!.includes("\\")
  ) {
    return sendError(res, 400, "bad request");
  }
  let url: URL;
  try {
    url = new URL(rawUrl, "http://recall.invalid");
  } catch {
    return sendError(res, 400, "bad request");
  }
  const method = req.method === "HEAD" ? "GET" : req.method;
  if (method === "GET" && url.pathname === "/" && url.searchParams.has("token")) {
    // A HEAD (a link checker, `curl -I`) must not spend the one-time token a person will open.
    if (req.method === "HEAD") return send(res, 204, "", "text/plain; charset=utf-8");
    return login(ctx.auth, req, url, res);
  }
  if (!ctx.auth.authenticated(req)) {
    return sendError(res, 403, "not logged in: open the dashboard URL that `recall serve` printed");
  }
  const matches = ctx.routes
    .map((route) => ({ route, match: route.pattern.exec(url.pathname) }))
    .filter((m) => m.match !== null);
  if (matches.length === 0) return sendError(res, 404, "no such route");
  const found = matches.find((m) => m.route.method === method);
  if (!found) return sendError(res, 405, "method not allowed", { Allow: "GET, HEAD" });
  const gone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  const answer = await found.route.handle({
    params: found.match!.slice(1),
    query: url.searchParams,
    services: ctx.services,
    signal: gone.signal,
  });
  if ("json" in answer) sendJson(res, answer.status ?? 200, answer.json);
  else send(res, answer.status ?? 200, answer.body, answer.type, answer.headers);
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const routes = options.routes ?? ROUTES;
  // The port is known only once listening (port 0), and auth and the guard depend on it.
  let ctx: Parameters<typeof handle>[2] | null = null;
  const server: Server = createServer((req, res) => {
    if (!ctx) return sendError(res, 503, "starting");
    const services = ctx.services;
    handle(req, res, ctx).catch((error: unknown) => {
      const { status, message } = statusOf(asDamagedIndex(error, services.db.name) ?? error);
      if (status >= 500) options.onFault?.((error as Error)?.name ?? "Error");
      // Only a lookup in the index can mean "not indexed yet" (not an unknown page or route).
      const lookup = status === 404 && (req.url ?? "").startsWith("/api/");
      if (!res.headersSent) sendError(res, status, lookup ? message + stillIndexing(services) : message);
      else res.destroy();
    });
  });
  // Bounded waits: a stalled client must not hold a connection open for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.removeListener("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const auth = createAuth(port);
  ctx = { auth, hosts: allowedHosts(port, host), services: options.services, routes };
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const origin = `http://${shown}:${port}`;
  return {
    origin,
    port,
    loginUrl: `${origin}/?token=${auth.loginToken}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * What a miss means while sources are still being read: not "there is no such thing", but maybe
 * "not indexed yet". Empty when every source is caught up (or the coverage cannot be read).
 */
function stillIndexing(services: HttpServices): string {
  try {
    const busy = readCoverage(services.db, services.now()).filter((c) => c.state === "indexing");
    if (busy.length === 0) return "";
    const backlog = busy.map((c) => `${c.source} backlog ${c.backlog}`).join(", ");
    return `; the index is still being built (${backlog}): try again shortly`;
  } catch {
    return "";
  }
}
