import { readAudit } from "../../app/audit.js";
import { integerText, singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";

const MAX_CALLS = 200;

/**
 * GET /api/consulted?limit=: recent tool calls from the content-free audit log: when, which
 * surface and tool, how many results, which conversations came back. The log holds no query
 * text, so none can be shown.
 */
export const consultedRoute: Route = {
  method: "GET",
  pattern: /^\/api\/consulted$/,
  handle({ query, services }) {
    const p = singleParams(query, ["limit"]);
    const limit = p.limit === undefined ? 50 : integerText(p.limit);
    if (typeof limit !== "number" || limit < 1 || limit > MAX_CALLS) {
      throw new HttpError(400, `limit: must be an integer from 1 to ${MAX_CALLS}`);
    }
    const calls = readAudit(services.home, limit).map((r) => ({
      at: r.at,
      surface: r.surface,
      tool: r.tool,
      ok: r.ok,
      results: r.results,
      durationMs: r.durationMs,
      returned: r.returned,
    }));
    return { json: { calls } };
  },
};
