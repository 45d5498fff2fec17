import type { Db } from "../../store/open.js";
import { statement } from "../../store/statements.js";
import { filterSql } from "../filters.js";
import { rankDocuments } from "../planner.js";
import { ftsAll, ftsAny } from "../query.js";
import { HISTORY_WEIGHTS } from "../weights.js";
import type { EngineSearch, RankedDocument } from "./types.js";

/** Snippet length in tokens (FTS5 snippet()). */
export const SNIPPET_TOKENS = 48;

const COLUMNS = `d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
  d.conversation, d.cursor, d.role, d.title`;

/**
 * bm25-ranked search with every filter inside the ranking (planner.ts chooses how), then the
 * chosen rows' columns and FTS5 snippets, looked up by id.
 */
export function searchFts5(db: Db, request: EngineSearch): RankedDocument[] {
  if (request.tokens.length === 0) return [];
  const { where, params } = filterSql(request.filters);
  const ranked = rankDocuments(db, {
    terms: request.tokens,
    match: request.match,
    where,
    params,
    limit: request.limit,
    weights: HISTORY_WEIGHTS,
    ...(request.excludeIds ? { excludeIds: request.excludeIds } : {}),
    ...(request.maxScored !== undefined ? { maxScored: request.maxScored } : {}),
  });
  if (ranked.rows.length === 0) return [];
  const ids = JSON.stringify(ranked.rows.map((r) => r.id));
  const docs = statement(
    db,
    `SELECT ${COLUMNS} FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
  ).all(ids) as Omit<RankedDocument, "snippet" | "score">[];
  const expression = request.match === "all" ? ftsAll(request.tokens) : ftsAny(request.tokens);
  const snippets = statement(
    db,
    `SELECT rowid AS id, snippet(recall_fts, 1, '', '', '…', ${SNIPPET_TOKENS}) AS snippet
     FROM recall_fts WHERE recall_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
  ).all(expression, ids) as { id: number; snippet: string }[];
  const byId = new Map(docs.map((d) => [d.id, d]));
  const snippetOf = new Map(snippets.map((s) => [s.id, s.snippet]));
  const out: RankedDocument[] = [];
  for (const r of ranked.rows) {
    const doc = byId.get(r.id);
    if (doc) out.push({ ...doc, score: r.score, snippet: snippetOf.get(r.id) ?? "" });
  }
  return out;
}
