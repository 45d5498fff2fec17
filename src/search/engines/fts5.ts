import type { Db } from "../../store/open.js";
import { statement } from "../../store/statements.js";
import { documentBody, recordTextColumn, type StoredBody } from "../../store/document-text.js";
import { filterSql } from "../filters.js";
import { rankDocuments } from "../planner.js";
import { HISTORY_WEIGHTS } from "../weights.js";
import type { EngineSearch, RankedDocument } from "./types.js";

function columns(db: Db): string {
  return `d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
    d.conversation, d.cursor, d.role, d.title, d.body, ${recordTextColumn(db)},
    (SELECT c.title FROM recall_conversations c WHERE c.id = d.conversation) AS conversationTitle`;
}

/** bm25-ranked search with every filter inside the ranking (planner.ts chooses how), then the chosen rows. */
export function searchFts5(db: Db, request: EngineSearch): RankedDocument[] {
  if (request.terms.length === 0) return [];
  const { where, params } = filterSql(request.filters);
  const ranked = rankDocuments(db, {
    terms: request.terms,
    match: request.match,
    where,
    params,
    limit: request.limit,
    weights: HISTORY_WEIGHTS,
    ...(request.excludeIds ? { excludeIds: request.excludeIds } : {}),
    ...(request.maxScored !== undefined ? { maxScored: request.maxScored } : {}),
  });
  if (ranked.rows.length === 0) return [];
  const docs = statement(
    db,
    `SELECT ${columns(db)} FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
  ).all(JSON.stringify(ranked.rows.map((r) => r.id))) as (Omit<RankedDocument, "score"> & StoredBody)[];
  const byId = new Map(
    docs.map(({ recordText, ...d }) => [d.id, { ...d, body: documentBody({ body: d.body, recordText }) }]),
  );
  const out: RankedDocument[] = [];
  for (const r of ranked.rows) {
    const doc = byId.get(r.id);
    if (doc) out.push({ ...doc, score: r.score });
  }
  return out;
}
