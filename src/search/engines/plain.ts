import type { Db } from "../../store/open.js";
import { statement } from "../../store/statements.js";
import { foldText } from "../../store/fold.js";
import { filterSql } from "../filters.js";
import type { EngineSearch, RankedDocument } from "./types.js";

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Plain fallback when FTS5 is missing: folded literal substring matching, newest first. */
export function searchPlain(db: Db, request: EngineSearch): RankedDocument[] {
  if (request.terms.length === 0) return [];
  const { where, params } = filterSql(request.filters);
  const folded = substrings(request.terms).map((t) => `%${escapeLike(foldText(t))}%`);
  const join = request.match === "all" ? " AND " : " OR ";
  const match = `(${folded.map(() => "p.folded LIKE ? ESCAPE '\\'").join(join)})`;
  if (request.excludeIds?.length) where.push(`d.id NOT IN (${request.excludeIds.map(() => "?").join(", ")})`);
  const sql = `SELECT d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
      d.conversation, d.cursor, d.role, d.title, d.body, 0 AS score,
      (SELECT c.title FROM recall_conversations c WHERE c.id = d.conversation) AS conversationTitle
    FROM recall_plain p JOIN recall_documents d ON d.id = p.id
    WHERE ${match}${where.map((w) => ` AND ${w}`).join("")}
    ORDER BY d.at DESC, d.id DESC
    LIMIT ?`;
  return statement(db, sql).all(
    ...folded,
    ...params,
    ...(request.excludeIds ?? []),
    request.limit,
  ) as RankedDocument[];
}

/**
 * What the plain engine looks for: a stem prefix ("decision*") as its stem, a substring of every
 * form; a CJK phrase term ("検 索") as the characters it was typed as.
 */
export const substrings = (terms: readonly string[]): string[] =>
  terms.map((t) => (t.endsWith("*") ? t.slice(0, -1) : t.includes(" ") ? t.replaceAll(" ", "") : t));

/** A window of the body around the first folded match, for the plain engine's snippets. */
export function excerptAround(body: string, tokens: readonly string[], width = 300): string {
  const haystack = foldText(body);
  let at = -1;
  for (const token of tokens) {
    const i = haystack.indexOf(foldText(token));
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  const start = codePointStart(body, Math.max(0, rawOffset(body, at) - Math.floor(width / 3)));
  const end = codePointStart(body, Math.min(body.length, start + width));
  return `${start > 0 ? "…" : ""}${body.slice(start, end)}${end < body.length ? "…" : ""}`;
}

/**
 * Where in `body` its folded text reaches `foldedAt`: folding can lengthen text (NFKD splits a
 * Hangul syllable or a ligature into several characters), so a folded offset is not a raw one.
 */
function rawOffset(body: string, foldedAt: number): number {
  if (foldedAt <= 0) return 0;
  let folded = 0;
  let raw = 0;
  for (const ch of body) {
    if (folded >= foldedAt) return raw;
    folded += foldText(ch).length;
    raw += ch.length;
  }
  return body.length;
}

/** `i`, or one before it when `i` would split a surrogate pair. */
function codePointStart(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}
