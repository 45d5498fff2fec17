import { AgentName } from "../../app/sources.js";
import {
  conversationById,
  conversationOfHit,
  locateTranscript,
  positionOfHit,
  historyDocument,
  isWellFormedHitId,
} from "../../app/reads.js";
import { singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";

/**
 * GET /api/locate: the page's navigation keys (history spec) to a conversation and the record
 * to open it around: `message=<id>`, `session=&agent=&from=[&child=]`, and chat hits'
 * `conversation=&record=`. `conversation` is null when the document has no retained context.
 */
export const locateRoute: Route = {
  method: "GET",
  pattern: /^\/api\/locate$/,
  handle({ query, services }) {
    const p = singleParams(query, ["message", "session", "agent", "from", "child", "conversation", "record"]);
    const { db } = services;
    for (const key of ["message", "session", "agent", "conversation", "record"] as const) {
      if (p[key] !== undefined && p[key].trim() === "") throw new HttpError(400, `${key}: must not be empty`);
    }
    const keys = (["message", "session", "conversation"] as const).filter((k) => p[k] !== undefined);
    if (keys.length > 1) throw new HttpError(400, `${keys.join(", ")}: give only one of them`);
    if (p.message !== undefined) {
      const ids = [p.message, `message:${p.message}`].filter(isWellFormedHitId);
      const doc = ids.map((id) => historyDocument(db, id)).find((d) => d !== undefined);
      if (!doc) throw new HttpError(404, "message: no indexed message has this id");
      return { json: { conversation: conversationOfHit(db, doc.id) ?? null, focus: doc.id } };
    }
    if (p.session !== undefined) {
      if (p.agent === undefined) throw new HttpError(400, "agent: required with session");
      if (!AgentName.safeParse(p.agent).success)
        throw new HttpError(400, `agent: must be one of ${AgentName.options.join(", ")}`);
      const target = locateTranscript(db, {
        session: p.session,
        agent: p.agent,
        from: p.from || undefined,
        child: p.child || undefined,
      });
      if (!target) throw new HttpError(404, "session: no retained transcript matches");
      return { json: { conversation: target.conversation, focus: target.hitId } };
    }
    if (p.conversation !== undefined) {
      if (p.record !== undefined && !isWellFormedHitId(p.record))
        throw new HttpError(400, "record: not a hit id (<kind>:<source id>)");
      if (!conversationById(db, p.conversation)) throw new HttpError(404, "conversation: not found");
      if (p.record !== undefined && !positionOfHit(db, p.conversation, p.record))
        throw new HttpError(404, "record: not in this conversation");
      return { json: { conversation: p.conversation, focus: p.record ?? null } };
    }
    throw new HttpError(400, "give message, session and agent, or conversation");
  },
};
