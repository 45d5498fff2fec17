import { foldedTokens } from "../search/bm25.js";
import type { HistoryQuery, QueryUnit } from "../search/history-query.js";

/**
 * Pure compilation between recall's text and PostgreSQL's tsvector/tsquery. Both sides are built
 * here, token for token, instead of through a text search configuration's parser: PostgreSQL's
 * default parser reads `build-log` as three tokens and `enable_rls.sql` as a file name, so the
 * index would disagree with the query units the planner made (search/history-query.ts). Tokens
 * are unicode61's (search/bm25.ts foldedTokens: lower case, diacritics folded), the same the
 * local FTS5 index holds, and reach PostgreSQL as literal lexemes (`'…'::tsvector`/`::tsquery`),
 * never through a parser, so no caller text is read as tsquery syntax.
 */

/** PostgreSQL keeps word positions up to 16,383; later occurrences share the last position. */
const MAX_POSITION = 16_383;
/** PostgreSQL rejects lexemes of 2 KiB or more; such a token could never be typed in a query. */
const MAX_LEXEME_BYTES = 2_046;
/** Characters unicode61 separates on: everything but letters, numbers and marks. */
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/u;

/** The tokens of `text` as the local index makes them (a fallback fold for unknown letters). */
export function teamTokens(text: string): string[] {
  const known = foldedTokens(text);
  if (known) return known;
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC")
    .toLowerCase()
    .split(SEPARATORS)
    .filter((t) => t.length > 0);
}

/** A lexeme quoted for tsvector/tsquery input. */
export function quoteLexeme(token: string): string {
  return `'${token.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** `text` as a tsvector literal: each token with its positions (1-based), as to_tsvector gives them. */
export function tsvectorLiteral(text: string): string {
  const positions = new Map<string, number[]>();
  teamTokens(text).forEach((token, i) => {
    if (Buffer.byteLength(token) > MAX_LEXEME_BYTES) return;
    const list = positions.get(token);
    const at = Math.min(i + 1, MAX_POSITION);
    if (!list) positions.set(token, [at]);
    else if (list.at(-1)! < at) list.push(at);
  });
  return [...positions].map(([token, at]) => `${quoteLexeme(token)}:${at.join(",")}`).join(" ");
}

/** One planner term as tsquery: a literal token, a stem prefix (`decision*` → `'decision':*`). */
export function termQuery(term: string): string {
  const prefix = term.endsWith("*");
  const tokens = teamTokens(prefix ? term.slice(0, -1) : term);
  if (tokens.length === 0) return "";
  const parts = tokens.map(quoteLexeme);
  if (prefix) parts[parts.length - 1] += ":*";
  return parts.length === 1 ? parts[0]! : `(${parts.join(" <-> ")})`;
}

/** Which pass a query is compiled for (search/history.ts runs the same three). */
export type TeamPass = "exact" | "forms" | "relaxed";

/**
 * One unit as tsquery. A CJK run is always a phrase of its characters (its one term holds them
 * space-separated). An identifier's parts are a phrase (`build <-> log`) in the strict passes;
 * a relaxed hit must still hold every part (`build & log`), as locally. A word is its exact form
 * in the exact pass and its stem prefix otherwise.
 */
export function unitQuery(unit: QueryUnit, pass: TeamPass): string {
  if (unit.phrase && unit.terms.length === 1) {
    const chars = unit.terms[0]!.split(" ").filter(Boolean).map(termQuery).filter(Boolean);
    return chars.length === 1 ? chars[0]! : `(${chars.join(" <-> ")})`;
  }
  if (unit.phrase) {
    const parts = unit.terms.map(termQuery).filter(Boolean);
    if (parts.length === 1) return parts[0]!;
    return `(${parts.join(pass === "relaxed" ? " & " : " <-> ")})`;
  }
  return termQuery(pass === "exact" ? unit.exact[0]! : unit.terms[0]!);
}

/** The tsquery of a pass: every unit (AND) in the strict passes, any unit (OR) in the relaxed one. */
export function compileTsquery(query: HistoryQuery, pass: TeamPass): string {
  const units = [...new Set(query.units.map((u) => unitQuery(u, pass)).filter(Boolean))];
  return units.join(pass === "relaxed" ? " | " : " & ");
}
