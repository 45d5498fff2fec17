import { appendAudit } from "../../app/audit.js";
import { historyDocument, isWellFormedHitId } from "../../app/reads.js";
import { singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";
import { decodeSegment } from "../segment.js";

/**
 * GET /api/history/<encoded hit id>: the indexed, bounded document of one hit. It reads the
 * derived excerpt in the index only: an id is looked up, never resolved to a path.
 */
export const historyRoute: Route = {
  method: "GET",
  pattern: /^\/api\/history\/([^/]+)$/,
  handle({ params, query, services }) {
    singleParams(query, []);
    const started = performance.now();
    const id = decodeSegment(params[0]!, "id");
    if (!isWellFormedHitId(id)) throw new HttpError(400, "id: not a hit id (<kind>:<source id>)");
    const doc = historyDocument(services.db, id);
    appendAudit(services.home, {
      at: services.now(),
      surface: "http",
      tool: "history_document",
      ok: doc !== undefined,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      results: doc ? 1 : 0,
      truncated: false,
      indexStatus: null,
      errorKind: doc ? null : "NotFound",
      returned: doc ? [doc.id] : [],
    });
    if (!doc) throw new HttpError(404, "no indexed document has this id");
    return { json: doc };
  },
};
