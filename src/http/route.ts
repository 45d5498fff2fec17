import type { Redaction } from "../projection/index.js";
import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import type { GetConversationInput } from "../tools/get-conversation.js";
import type { SearchHistoryInput } from "../tools/search-history-input.js";
import type { ToolDefinition } from "../tools/definition.js";

/** What every route reads from: the index (read only), the tools over it, and RECALL_HOME (audit log). */
export interface HttpServices {
  db: Db;
  engine: Engine;
  home: string;
  /** The agent-bridge store (docs/bridge-store.md): run logs and decisions, read only. */
  bridgeRoot: string;
  /**
   * What secrets in text read from the bridge store itself (run logs, decision history) become,
   * as in the index's own text (config.json `redaction`).
   */
  redaction: Redaction;
  now: () => number;
  tools: {
    searchHistory: ToolDefinition<typeof SearchHistoryInput>;
    getConversation: ToolDefinition<typeof GetConversationInput>;
  };
}

export interface RouteRequest {
  /** The pattern's capture groups, still percent-encoded (decode with decodeSegment). */
  params: string[];
  query: URLSearchParams;
  services: HttpServices;
  /** Aborts when the client goes away before the answer is sent (a model run then stops). */
  signal: AbortSignal;
}

export type RouteAnswer =
  { status?: number; json: unknown } | { status?: number; body: string | Buffer; type: string };

/**
 * One entry of the route table. Requests reach a route only after the host, origin and login
 * checks, so a route never handles an unauthenticated request. Patterns match the raw path.
 */
export interface Route {
  method: "GET";
  pattern: RegExp;
  handle(request: RouteRequest): RouteAnswer | Promise<RouteAnswer>;
}
