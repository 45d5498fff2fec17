import type { IncomingMessage } from "node:http";
import { networkInterfaces } from "node:os";

/**
 * DNS-rebinding guard: a page on another site can make the browser reach 127.0.0.1 under its own
 * host name, so every request must name this server by a loopback address (or the explicitly
 * bound one) and the served port in its Host header; any other Host is refused before routing.
 */
export function allowedHosts(port: number, boundHost: string): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const hostPort = (address: string) =>
    `${address.includes(":") ? `[${address}]` : address}:${port}`.toLowerCase();
  if (boundHost === "0.0.0.0" || boundHost === "::") {
    // Bound to every interface (explicitly): this machine's own addresses, never a DNS name.
    for (const list of Object.values(networkInterfaces())) {
      for (const info of list ?? []) hosts.add(hostPort(info.address));
    }
  } else {
    hosts.add(hostPort(boundHost));
  }
  return hosts;
}

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach. */
export function isLoopback(host: string): boolean {
  return /^127(\.\d{1,3}){3}$/.test(host) || host === "::1" || host === "localhost";
}

export function hostAllowed(req: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  const host = req.headers.host;
  return typeof host === "string" && hosts.has(host.toLowerCase());
}

/** Methods that change nothing; only these may come without a matching Origin. */
export const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * Anything that is not GET/HEAD must carry an Origin naming this server (browsers always send
 * one on such requests), so a cross-site form or fetch never gets past this point.
 */
export function originAllowed(req: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  if (SAFE_METHODS.has(req.method ?? "")) return true;
  const origin = req.headers.origin;
  if (typeof origin !== "string") return false;
  const match = /^http:\/\/([^/]+)$/i.exec(origin);
  return match !== null && hosts.has(match[1]!.toLowerCase());
}

/**
 * A browser names where a request comes from in Sec-Fetch-Site. Pages on another port of this
 * machine are the "same site" to it (ports do not separate sites), so its cookie rides along on
 * their requests, GETs included, and a GET can start work (`answer=true` runs a model). Only the
 * dashboard's own pages ("same-origin") and a link opened from outside any page ("none", the
 * login link) are served; clients that are not browsers send no such header.
 */
export function fetchSiteAllowed(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin" || site === "none";
}
