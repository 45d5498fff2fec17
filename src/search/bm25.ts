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

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const NON_ASCII = /[^\x00-\x7f]/g;
/**
 * Stand-ins for characters whose folding is unknown: a letter (unicode61 folds it to some letter)
 * and a combining mark (unicode61 may fold it away). Private-use characters: token characters.
 */
const UNKNOWN = "\uE000";
const UNKNOWN_MARK = "\uE001";
const MARK = /^\p{M}$/u;
const LATIN_OR_MARK = /[\p{Script=Latin}\p{M}]/u;
const BASE_AND_MARKS = /^([A-Za-z])\p{M}+$/u;
/**
 * How unicode61 (remove_diacritics 2) folds a non-ASCII character, as far as this module relies
 * on it: a Latin letter whose canonical decomposition is an ASCII letter plus marks folds to that
 * letter (é → e, Ü → u); other Latin letters and lone marks are "unknown" (null); characters of
 * other scripts stay themselves (they can never become part of an ASCII token).
 */
const folds = new Map<string, string | null>();
function foldChar(ch: string): string | null {
  let f = folds.get(ch);
  if (f === undefined) {
    if (!LATIN_OR_MARK.test(ch)) f = ch;
    else f = BASE_AND_MARKS.exec(ch.normalize("NFD"))?.[1]?.toLowerCase() ?? null;
    folds.set(ch, f);
  }
  return f;
}
/** unicode61's token characters (categories L*, N*, Co) and marks. */
const TOKEN_CHAR = /^[\p{L}\p{N}\p{M}\p{Co}]$/u;

function isTokenCodePoint(cp: number): boolean {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90);
  return TOKEN_CHAR.test(String.fromCodePoint(cp));
}

/** Whether the character ending just before `at` (at − 1, or a surrogate pair ending there) separates tokens. */
function separatesBefore(text: string, at: number): boolean {
  if (at <= 0) return true;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) return !isTokenCodePoint(text.codePointAt(at - 2)!);
  return !isTokenCodePoint(low);
}

function separatesAt(text: string, at: number): boolean {
  if (at >= text.length) return true;
  return !isTokenCodePoint(text.codePointAt(at)!);
}

/**
 * `text` folded as unicode61 folds tokens (ASCII lower-cased, known Latin letters to their ASCII
 * letter; characters of unknown folding left as a private-use stand-in), index for index with the
 * original, or null when lower-casing would change its length.
 */
export function foldForMatching(text: string): string | null {
  const folded = ASCII_ONLY.test(text)
    ? text
    : text.replace(NON_ASCII, (ch) => foldChar(ch) ?? (MARK.test(ch) ? UNKNOWN_MARK : UNKNOWN));
  const lower = folded.toLowerCase();
  return lower.length === folded.length ? lower : null;
}

/**
 * Whether a token holding a character of unknown folding could, however unicode61 folds it (to
 * some letter, or away), equal an exact term or start with a prefix term where plain counting
 * says it does not. Only then must FTS5 be asked; any other such token cannot matter.
 */
function unknownTokensMayMatch(lower: string, terms: readonly string[]): boolean {
  for (const token of lower.split(SEPARATORS)) {
    if (!token.includes(UNKNOWN) && !token.includes(UNKNOWN_MARK)) continue;
    const dropped = token.split(UNKNOWN_MARK).join("");
    for (const term of terms) {
      const prefix = term.endsWith("*");
      const t = prefix ? term.slice(0, -1) : term;
      // Plain counting already decides a prefix term whose whole prefix precedes the first unknown character.
      const first = Math.min(...[token.indexOf(UNKNOWN), token.indexOf(UNKNOWN_MARK)].filter((i) => i >= 0));
      if (prefix && first >= t.length) continue;
      // Marks may vanish; letters stay one letter each.
      const wildcard = (s: string) => {
        if (prefix ? s.length < t.length : s.length !== t.length) return false;
        for (let i = 0; i < t.length; i++) if (s[i] !== t[i] && s[i] !== UNKNOWN) return false;
        return true;
      };
      if (wildcard(dropped)) return true;
    }
  }
  return false;
}

/**
 * Adds each term's occurrences among the tokens of `text`, exactly as unicode61
 * (remove_diacritics 2) counts them, to `out[i]` (times `weight`). `terms` are lower-case ASCII
 * letters and digits, a trailing `*` making a prefix term (any token starting with it, as FTS5's
 * `"term"*`). An occurrence counts when the characters around it separate tokens; a term
 * glued to letters of another script is part of a longer token, as in unicode61. Returns false,
 * leaving `out` unspecified, when a token holds a Latin letter or mark whose folding this
 * module does not know (see foldChar) and could therefore match a term: the caller then asks FTS5.
 */
export function countTerms(text: string, terms: readonly string[], weight: number, out: number[]): boolean {
  let folded = text;
  let unknown = false;
  if (!ASCII_ONLY.test(text)) {
    folded = text.replace(NON_ASCII, (ch) => {
      const f = foldChar(ch);
      if (f !== null) return f;
      unknown = true;
      return MARK.test(ch) ? UNKNOWN_MARK : UNKNOWN;
    });
  }
  const lower = folded.toLowerCase();
  if (lower.length !== folded.length) return false;
  if (unknown && unknownTokensMayMatch(lower, terms)) return false;
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!;
    const prefix = term.endsWith("*");
    const needle = prefix ? term.slice(0, -1) : term;
    let n = 0;
    for (let at = lower.indexOf(needle); at !== -1;) {
      let end = at + needle.length;
      if (separatesBefore(lower, at)) {
        if (prefix) {
          n++;
          while (end < lower.length && !separatesAt(lower, end)) end++;
        } else if (separatesAt(lower, end)) n++;
      }
      at = lower.indexOf(needle, end);
    }
    if (n > 0) out[i]! += n * weight;
  }
  return true;
}

/** Token characters after folding: ASCII letters and digits, and letters, digits and marks of other scripts. */
const SEPARATORS = /[^a-z0-9\p{L}\p{N}\p{M}\p{Co}]+/u;

/**
 * The tokens of `text` as unicode61 (remove_diacritics 2) makes them, folded to lower case, or
 * null when the text holds a character whose folding this module does not know (see foldChar).
 * Tokens of other scripts are returned lower-cased but otherwise unfolded: they can only ever be
 * compared with the query's own tokens folded the same way.
 */
export function foldedTokens(text: string): string[] | null {
  let folded = text;
  if (!ASCII_ONLY.test(text)) {
    let unknown = false;
    folded = text.replace(NON_ASCII, (ch) => {
      const f = foldChar(ch);
      if (f === null) unknown = true;
      return f ?? ch;
    });
    if (unknown) return null;
  }
  return folded
    .toLowerCase()
    .split(SEPARATORS)
    .filter((t) => t.length > 0);
}

/** Whether `tokens` holds `phrase` (lower-case ASCII tokens) as adjacent tokens in order. */
export function containsPhrase(tokens: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  for (
    let i = tokens.indexOf(phrase[0]!);
    i !== -1 && i + phrase.length <= tokens.length;
    i = tokens.indexOf(phrase[0]!, i + 1)
  ) {
    let k = 1;
    while (k < phrase.length && tokens[i + k] === phrase[k]) k++;
    if (k === phrase.length) return true;
  }
  return false;
}
