import { CJK_CHAR, hasCjk } from "../projection/cjk.js";

/**
 * Query compilation: caller text becomes literal Unicode word/number tokens, each quoted
 * for FTS5, so no caller text is ever executed as FTS syntax.
 */

/** Maximal runs of letters, numbers and combining marks: what SQLite's unicode61 tokenizer calls a token. */
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/** Literal tokens in query order, case-folded and de-duplicated. */
export function queryTokens(query: string, max = Number.POSITIVE_INFINITY): string[] {
  const seen = new Set<string>();
  for (const match of query.normalize("NFC").matchAll(TOKEN)) {
    const token = match[0].toLowerCase();
    if (!seen.has(token)) seen.add(token);
    if (seen.size >= max) break;
  }
  return [...seen];
}

/** Literal tokens in query order, case-folded, repeats kept: the query read as an exact phrase. */
export function phraseTokens(query: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const match of query.normalize("NFC").matchAll(TOKEN)) {
    if (out.length >= max) break;
    out.push(...splitCjk(match[0].toLowerCase()));
  }
  return out;
}

/**
 * A run of CJK characters as one FTS5 phrase of single-character tokens (the search projection
 * separates them, projection/cjk.ts): "検索結果" → the term "検 索 結 果", which ftsTerm quotes.
 */
export const cjkPhraseTerm = (run: string): string => Array.from(run).join(" ");

/** A token split into its CJK runs (each a phrase term, cjkPhraseTerm) and its other runs. */
export function splitCjk(token: string): string[] {
  if (!hasCjk(token)) return [token];
  const out: string[] = [];
  for (const m of token.matchAll(CJK_RUNS)) out.push(CJK_CHAR.test(m[0]) ? cjkPhraseTerm(m[0]) : m[0]);
  return out;
}

const CJK_RUNS = new RegExp(`(?:${CJK_CHAR.source})+|(?:(?!${CJK_CHAR.source})[^])+`, "gu");

/** One FTS5 string literal: double quotes doubled, nothing else interpreted. */
export function quoteFts(token: string): string {
  return `"${token.replace(/"/g, '""')}"`;
}

/** The tokens as one phrase: adjacent and in order. */
export const ftsPhrase = (tokens: readonly string[]): string => quoteFts(tokens.join(" "));
