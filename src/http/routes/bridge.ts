import { appendAudit } from "../../app/audit.js";
import {
  decisionHistory,
  decisionIndexed,
  readRunChunk,
  runIndexed,
  type RunChunk,
} from "../../app/reads.js";
import { isRecallError } from "../../core/errors.js";
import { singleParams } from "../params.js";
import type { Route, RouteRequest } from "../route.js";
import { decodeSegment } from "../segment.js";

/**
 * A content-free audit line for a bridge read (the conversation read, never any text): `idOf`
 * names that conversation from what was read.
 */
function audited<T>(request: RouteRequest, tool: string, idOf: (value: T) => string, read: () => T): T {
  const started = performance.now();
  const line = (ok: boolean, errorKind: string | null, returned: string[] = []) =>
    appendAudit(request.services.home, {
      at: request.services.now(),
      surface: "http",
      tool,
      ok,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      results: ok ? 1 : 0,
      truncated: false,
      indexStatus: null,
      errorKind,
      returned,
    });
  try {
    const value = read();
    line(true, null, [idOf(value)]);
    return value;
  } catch (error) {
    line(false, isRecallError(error) ? error.kind : "Internal");
    throw error;
  }
}

/**
 * GET /api/runs/<basename without .log>?from=<offset>: a bounded chunk (at most 64 KiB) of a
 * delegated run's log from a byte offset, where a run hit's link points. The name is looked up
 * inside the store's runs/ and runs/archive/ only (conversations/bridge.ts), never as a path,
 * and served only while the index holds the run (not after `recall forget`).
 */
export const runLogRoute: Route = {
  method: "GET",
  pattern: /^\/api\/runs\/([^/]+)$/,
  handle(request) {
    const { from } = singleParams(request.query, ["from"]);
    const run = decodeSegment(request.params[0]!, "run");
    return {
      // The run's conversation id names its log file (`run:<name>.log`, sources/bridge/records.ts).
      json: audited(
        request,
        "run_log",
        (chunk: RunChunk) => `run:${chunk.run}`,
        () => {
          const chunk = readRunChunk(
            request.services.bridgeRoot,
            run,
            from ?? 0,
            runIndexed(request.services.db),
          );
          // Read from the run log itself, not the index: redacted here as the index's text is.
          return { ...chunk, text: request.services.redaction.redact(chunk.text) };
        },
      ),
    };
  },
};

/**
 * GET /api/decisions/<topic>/history[?after=<rev>]: a decision topic's revisions, oldest first,
 * a bounded page at a time (`next` is the following page's `after`), of those the index holds
 * only (not after `recall forget`).
 */
export const decisionHistoryRoute: Route = {
  method: "GET",
  pattern: /^\/api\/decisions\/([^/]+)\/history$/,
  handle(request) {
    const { after } = singleParams(request.query, ["after"]);
    const topic = decodeSegment(request.params[0]!, "topic");
    return {
      json: audited(
        request,
        "decision_history",
        () => `decision:${topic}`,
        () => {
          const history = decisionHistory(
            request.services.bridgeRoot,
            topic,
            after ?? 0,
            decisionIndexed(request.services.db),
          );
          // Read from the bridge store itself, not the index: redacted here as the index's text is.
          const { redact } = request.services.redaction;
          return {
            ...history,
            revisions: history.revisions.map((r) => ({
              ...r,
              decision: redact(r.decision),
              rationale: r.rationale === null ? null : redact(r.rationale),
            })),
          };
        },
      ),
    };
  },
};
