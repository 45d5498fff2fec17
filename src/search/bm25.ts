/**
 * FTS5's bm25() re-computed in JavaScript, operation for operation (SQLite fts5_aux.c
 * fts5Bm25Function), so a score computed here for a row equals the one FTS5 returns for the
 * same query and row: the planner ranks candidates it found cheaply with exactly the numbers
 * the plain `ORDER BY bm25(...)` query would have used.
 *
 * score = -Σ_i idf_i · (f_i · (k1 + 1)) / (f_i + k1 · (1 − b + b · D / avgdl)), where f_i is the
 * column-weighted count of phrase i in the row, D the row's length in tokens (all columns),
 * idf_i = ln((N − n_i + 0.5) / (n_i + 0.5)) clamped to 1e-6 when not positive.
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Largest share one phrase can add to a row's score: f → ∞ makes the fraction k1 + 1. */
export const BM25_SATURATION = BM25_K1 + 1.0;

export function bm25Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

/** One phrase's contribution (positive: higher is better). */
export function bm25Term(idf: number, freq: number, length: number, avgdl: number): number {
  return idf * ((freq * (BM25_K1 + 1.0)) / (freq + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl)));
}

/** The row's score as FTS5 returns it (lower is better), phrases summed in query order. */
export function bm25Score(
  idfs: readonly number[],
  freqs: readonly number[],
  length: number,
  avgdl: number,
): number {
  let score = 0.0;
  for (let i = 0; i < idfs.length; i++) {
    const f = freqs[i] ?? 0;
    score += idfs[i]! * ((f * (BM25_K1 + 1.0)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl)));
  }
  return -1.0 * score;
}

/** Printable ASCII and ASCII whitespace: text unicode61 tokenizes exactly like ASCII_TOKEN does. */
const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** unicode61 on ASCII: runs of letters and digits are tokens, every other character separates. */
const ASCII_TOKEN = /[A-Za-z0-9]+/g;

export function isAscii(text: string): boolean {
  return ASCII_ONLY.test(text);
}

/**
 * Occurrences of each term among the tokens of ASCII `text`, exactly as unicode61 counts them
 * (ASCII letters folded to lower case). `terms` must be lower-case ASCII tokens; `out[i]` is
 * incremented by `weight` per occurrence of terms[i].
 */
export function countAsciiTerms(
  text: string,
  index: ReadonlyMap<string, number>,
  weight: number,
  out: number[],
): void {
  ASCII_TOKEN.lastIndex = 0;
  for (let m = ASCII_TOKEN.exec(text); m !== null; m = ASCII_TOKEN.exec(text)) {
    const token = m[0].length > 0 && /[A-Z]/.test(m[0]) ? m[0].toLowerCase() : m[0];
    const i = index.get(token);
    if (i !== undefined) out[i]! += weight;
  }
}

/** Token positions of ASCII `text` (for phrase checks): lower-cased tokens in order. */
export function asciiTokens(text: string): string[] {
  return (text.match(ASCII_TOKEN) ?? []).map((t) => t.toLowerCase());
}
