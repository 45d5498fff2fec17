import type { Db } from "../../store/open.js";
import { statement } from "../../store/statements.js";
import { foldText } from "../../store/fold.js";
import { filterSql } from "../filters.js";
import type { EngineSearch, RankedDocument } from "./types.js";

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Plain fallback when FTS5 is missing: folded literal substring matching, newest first. */
export function searchPlain(db: Db, request: EngineSearch): RankedDocument[] {
  if (request.tokens.length === 0) return [];
  const { where, params } = filterSql(request.filters);
  const folded = request.tokens.map((t) => `%${escapeLike(foldText(t))}%`);
  const join = request.match === "all" ? " AND " : " OR ";
  const match = `(${folded.map(() => "p.folded LIKE ? ESCAPE '\\'").join(join)})`;
  if (request.excludeIds?.length) where.push(`d.id NOT IN (${request.excludeIds.map(() => "?").join(", ")})`);
  const sql = `SELECT d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
      d.conversation, d.cursor, d.role, d.title, d.body AS snippet, 0 AS score
    FROM recall_plain p JOIN recall_documents d ON d.id = p.id
    WHERE ${match}${where.map((w) => ` AND ${w}`).join("")}
    ORDER BY d.at DESC, d.id DESC
    LIMIT ?`;
  const rows = statement(db, sql).all(
    ...folded,
    ...params,
    ...(request.excludeIds ?? []),
    request.limit,
  ) as RankedDocument[];
  return rows.map((row) => ({ ...row, snippet: excerptAround(row.snippet, request.tokens) }));
}

/** A window of the body around the first folded match, for the plain engine's snippets. */
export function excerptAround(body: string, tokens: readonly string[], width = 300): string {
  const haystack = foldText(body);
  let at = -1;
  for (const token of tokens) {
    const i = haystack.indexOf(foldText(token));
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  const start = Math.max(0, at - Math.floor(width / 3));
  const text = body.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${text}${start + width < body.length ? "…" : ""}`;
}
