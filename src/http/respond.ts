import type { ServerResponse } from "node:http";
import { isRecallError } from "../core/errors.js";

/** An answer the client caused (400, 403, 404, 405): its message is safe to show as is. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * Headers on every answer: nothing is cached (answers hold history), nothing may frame or sniff
 * the page, and the page may load only its own scripts and styles (no inline code, no CDN).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};

export function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  type: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Content-Type": type,
    "Content-Length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** JSON as is: a tool's output string goes out byte for byte, so HTTP and MCP answer alike. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  send(
    res,
    status,
    typeof body === "string" ? body : JSON.stringify(body),
    "application/json; charset=utf-8",
    headers,
  );
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: message }, headers);
}

/** A tool's RecallError as an HTTP status; anything unexpected is a bare 500, never a stack. */
export function statusOf(error: unknown): { status: number; message: string } {
  if (error instanceof HttpError) return { status: error.status, message: error.message };
  if (isRecallError(error)) {
    switch (error.kind) {
      case "Validation":
      case "Usage":
        return { status: 400, message: error.message };
      case "NotFound":
        return { status: 404, message: error.message };
      case "Unavailable":
        return { status: 503, message: error.message };
      default:
        return { status: 500, message: "internal error" };
    }
  }
  return { status: 500, message: "internal error" };
}
