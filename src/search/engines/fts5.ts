import type { Db } from "../../store/open.js";
import { statement } from "../../store/statements.js";
import { filterSql } from "../filters.js";
import { ftsAll, ftsAny } from "../query.js";
import type { EngineSearch, RankedDocument } from "./types.js";

/** Title matches weigh three times body matches, as the chat-search plan prescribes. */
export const TITLE_WEIGHT = 3.0;
export const BODY_WEIGHT = 1.0;

const COLUMNS = `d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
  d.conversation, d.cursor, d.role, d.title`;

/** bm25-ranked search with every filter inside the ranked query. Statements are cached per shape. */
export function searchFts5(db: Db, request: EngineSearch): RankedDocument[] {
  if (request.tokens.length === 0) return [];
  const { where, params } = filterSql(request.filters);
  if (request.excludeIds?.length) where.push(`d.id NOT IN (${request.excludeIds.map(() => "?").join(", ")})`);
  const sql = `SELECT ${COLUMNS},
      bm25(recall_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}) AS score,
      snippet(recall_fts, 1, '', '', '…', 48) AS snippet
    FROM recall_fts JOIN recall_documents d ON d.id = recall_fts.rowid
    WHERE recall_fts MATCH ?${where.map((w) => ` AND ${w}`).join("")}
    ORDER BY score, d.at DESC, d.id DESC
    LIMIT ?`;
  const expression = request.match === "all" ? ftsAll(request.tokens) : ftsAny(request.tokens);
  return statement(db, sql).all(expression, ...params, ...(request.excludeIds ?? []), request.limit) as RankedDocument[];
}
