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
    out.push(match[0].toLowerCase());
  }
  return out;
}

/** One FTS5 string literal: double quotes doubled, nothing else interpreted. */
export function quoteFts(token: string): string {
  return `"${token.replace(/"/g, '""')}"`;
}

export const ftsAll = (tokens: readonly string[]): string => tokens.map(quoteFts).join(" AND ");
export const ftsAny = (tokens: readonly string[]): string => tokens.map(quoteFts).join(" OR ");
/** The tokens as one phrase: adjacent and in order. */
export const ftsPhrase = (tokens: readonly string[]): string => quoteFts(tokens.join(" "));
