import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Login: `recall serve` prints a URL holding a one-time token. Presenting it once exchanges it
 * for a random session secret in an HttpOnly, SameSite=Strict cookie (scripts cannot read it,
 * other sites cannot send it); the token is then spent. The cookie name carries the port so two
 * recall servers on one machine (cookies ignore ports) do not overwrite each other's login.
 */
export interface Auth {
  readonly cookieName: string;
  /** The one-time login token (printed once in the dashboard URL). */
  readonly loginToken: string;
  /** Spends the token: the Set-Cookie value when it matches and is unspent, else null. */
  login(token: string): string | null;
  authenticated(req: IncomingMessage): boolean;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Constant-time equality (digests have one length, so timingSafeEqual never throws). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== "string") return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function createAuth(port: number): Auth {
  const cookieName = `recall_ui_${port}`;
  const loginToken = randomBytes(24).toString("base64url");
  // Set once, by the one login the token allows.
  let session: string | null = null;
  return {
    cookieName,
    loginToken,
    login(token) {
      if (session !== null || !sameSecret(token, loginToken)) return null;
      session = randomBytes(32).toString("base64url");
      return `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`;
    },
    authenticated(req) {
      const presented = readCookie(req, cookieName);
      return session !== null && presented !== undefined && sameSecret(presented, session);
    },
  };
}
