import { readAudit } from "../../app/audit.js";
import { booleanText, integerText, singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";

const MAX_CALLS = 200;
/** How far back a page may start: the log keeps two files of 4 MiB, some tens of thousands of calls. */
const MAX_OFFSET = 100_000;

/**
 * GET /api/consulted?limit=&offset=&http=&error_kinds=: recent tool calls from the content-free audit log: when, which
 * surface and tool, how many results, which conversations came back. The log holds no query
 * text, so none can be shown.
 */
export const consultedRoute: Route = {
  method: "GET",
  pattern: /^\/api\/consulted$/,
  handle({ query, services }) {
    const p = singleParams(query, ["limit", "offset", "http", "error_kinds"]);
    const withHttp = booleanText(p.http ?? "true");
    if (typeof withHttp !== "boolean") throw new HttpError(400, "http: must be true or false");
    const withKinds = booleanText(p.error_kinds ?? "false");
    if (typeof withKinds !== "boolean") throw new HttpError(400, "error_kinds: must be true or false");
    const limit = p.limit === undefined ? 50 : integerText(p.limit);
    if (typeof limit !== "number" || limit < 1 || limit > MAX_CALLS) {
      throw new HttpError(400, `limit: must be an integer from 1 to ${MAX_CALLS}`);
    }
    const offset = p.offset === undefined ? 0 : integerText(p.offset);
    if (typeof offset !== "number" || offset < 0 || offset > MAX_OFFSET) {
      throw new HttpError(400, `offset: must be an integer from 0 to ${MAX_OFFSET}`);
    }
    // One more than asked tells whether an older page follows. Leaving the dashboard's own calls
    // out happens before paging (so a page stays full), which needs the whole log read.
    const read = withHttp
      ? readAudit(services.home, offset + limit + 1)
      : readAudit(services.home, Number.MAX_SAFE_INTEGER).filter((r) => r.surface !== "http");
    const calls = read.slice(offset, offset + limit).map((r) => ({
      at: r.at,
      surface: r.surface,
      tool: r.tool,
      ok: r.ok,
      results: r.results,
      durationMs: r.durationMs,
      returned: r.returned,
      // Asked for: what a failed call failed with (NotFound, Validation…), its kind, never a message.
      ...(withKinds ? { errorKind: r.ok ? null : (r.errorKind ?? "unknown") } : {}),
    }));
    return { json: { calls, more: read.length > offset + limit } };
  },
};
