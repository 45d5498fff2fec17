import { auditCall } from "../../audit/audit-log.js";
import { parseInput } from "../../core/validation.js";
import { isWellFormedHitId } from "../../search/document.js";
import { GetConversationInput } from "../../tools/get-conversation.js";
import { readWindowAround, readWindowBefore } from "../../tools/conversation-window.js";
import { integerText, singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";
import { decodeSegment } from "../segment.js";
import { callTool } from "../tool-call.js";

/**
 * GET /api/conversations/<encoded id>?after=&limit=: get_conversation's JSON, unchanged. The
 * dashboard also pages backwards (`before=<prev>`) and opens a hit in place (`around=<hit id>`);
 * those answers add `prev` (and `focus`) to the same shape.
 */
export const conversationsRoute: Route = {
  method: "GET",
  pattern: /^\/api\/conversations\/([^/]+)$/,
  async handle({ params, query, services }) {
    const p = singleParams(query, ["after", "limit", "before", "around"]);
    const raw: Record<string, unknown> = { id: decodeSegment(params[0]!, "id") };
    if (p.after !== undefined) raw.after = p.after;
    if (p.limit !== undefined) raw.limit = integerText(p.limit);
    const given = (["after", "before", "around"] as const).filter((k) => p[k] !== undefined);
    if (given.length > 1)
      throw new HttpError(400, `${given.join(", ")}: use only one of after, before, around`);
    if (p.before === undefined && p.around === undefined) {
      return { json: await callTool(services.home, services.tools.getConversation, raw) };
    }
    const args = parseInput(GetConversationInput, raw);
    const started = performance.now();
    let window;
    if (p.before !== undefined) {
      window = readWindowBefore(services.db, { ...args, before: p.before });
    } else {
      const around = p.around!;
      if (!isWellFormedHitId(around)) throw new HttpError(400, "around: not a hit id (<kind>:<source id>)");
      window = readWindowAround(services.db, { ...args, around });
    }
    const output = JSON.stringify(window);
    auditCall(services.home, "http", "get_conversation", performance.now() - started, output, args);
    return { json: output };
  },
};
