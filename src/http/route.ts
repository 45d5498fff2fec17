import type { HttpServices } from "../app/http-services.js";

export type { HttpServices };
export interface RouteRequest {
  /** The pattern's capture groups, still percent-encoded (decode with decodeSegment). */
  params: string[];
  query: URLSearchParams;
  services: HttpServices;
  /** Aborts when the client goes away before the answer is sent (a model run then stops). */
  signal: AbortSignal;
}

export type RouteAnswer =
  | { status?: number; json: unknown }
  | { status?: number; body: string | Buffer; type: string; headers?: Record<string, string> };

/**
 * One entry of the route table. Requests reach a route only after the host, origin and login
 * checks, so a route never handles an unauthenticated request. Patterns match the raw path.
 */
export interface Route {
  method: "GET";
  pattern: RegExp;
  handle(request: RouteRequest): RouteAnswer | Promise<RouteAnswer>;
}
