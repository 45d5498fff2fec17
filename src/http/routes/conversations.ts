import { booleanText, integerText, singleParams } from "../params.js";
import type { Route } from "../route.js";
import { decodeSegment } from "../segment.js";
import { callTool } from "../tool-call.js";

/**
 * GET /api/conversations/<encoded id>?after=&before=&around=&limit=&include_context=: exactly
 * get_conversation's JSON for the same input. `around=<hit id>` opens the hit in place and
 * `before=<prev>` pages backwards (the dashboard does both); those answers add `prev` (and
 * `focus`). `include_context` is `true` or `false` (default): injected context records are left
 * out unless it is true. Each parameter at most once; at most one of after, before, around.
 */
export const conversationsRoute: Route = {
  method: "GET",
  pattern: /^\/api\/conversations\/([^/]+)$/,
  async handle({ params, query, services }) {
    const p = singleParams(query, ["after", "limit", "before", "around", "include_context"]);
    const raw: Record<string, unknown> = { id: decodeSegment(params[0]!, "id") };
    for (const key of ["after", "before", "around"] as const) if (p[key] !== undefined) raw[key] = p[key];
    if (p.limit !== undefined) raw.limit = integerText(p.limit);
    if (p.include_context !== undefined) raw.include_context = booleanText(p.include_context);
    return { json: await callTool(services.home, services.tools.getConversation, raw) };
  },
};
