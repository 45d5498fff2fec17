import { quoteFts } from "./query.js";

/**
 * A light English stemmer for search_chats' query terms (query side only: the index keeps
 * unicode61 tokens, so this needs no schema change). An inflected word is cut to its stem and
 * searched as an FTS5 prefix, so "paintings" finds "painting", "painted" and "paint". Measured on
 * LoCoMo by `npm run bench` (see README): it lifts session hit@1 and hit@5 by about three points.
 */

/** Suffixes tried in order; the first that leaves a long enough stem is cut (and replaced). */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ["ies", "y"],
  ["sses", "ss"],
  ["ness", ""],
  ["ment", ""],
  ["ing", ""],
  ["edly", ""],
  ["ed", ""],
  ["ers", "er"],
  ["es", ""],
  ["s", ""],
  ["ly", ""],
];

const DOUBLED = /([b-df-hj-kmnp-rtv-y])\1$/;

/** Stems shorter than this stay whole words (a short prefix matches too much). */
export const MIN_STEM = 4;

/** The stem of a lower-case ASCII word (the word itself when nothing applies). */
export function lightStem(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length <= MIN_STEM) return word;
  let stem = word;
  for (const [suffix, replacement] of SUFFIXES) {
    if (stem.endsWith(suffix) && stem.length - suffix.length + replacement.length >= MIN_STEM) {
      stem = stem.slice(0, stem.length - suffix.length) + replacement;
      // "planning" → "plan", "shipped" → "ship", "committed" → "commit" (Porter's rule: a doubled
      // final consonant left by -ing or -ed is undoubled, but not ll, ss or zz: "falling" → "fall").
      if ((suffix === "ing" || suffix === "ed") && DOUBLED.test(stem) && stem.length - 1 >= MIN_STEM)
        stem = stem.slice(0, -1);
      break;
    }
  }
  if ((stem.endsWith("y") || stem.endsWith("e")) && stem.length > MIN_STEM) stem = stem.slice(0, -1);
  return stem;
}

/**
 * Search terms for a token: alphabetic ASCII words of at least MIN_STEM letters become the
 * prefix term `stem*`; anything else (numbers, identifiers with digits, other scripts, short
 * words) stays an exact term.
 */
export function prefixTerm(token: string): string {
  if (!/^[a-z]+$/.test(token)) return token;
  const stem = lightStem(token);
  return stem.length >= MIN_STEM ? `${stem}*` : token;
}

/**
 * A term is a literal token ("index") or a prefix ("index*": every token starting with "index");
 * each term is one FTS5 phrase, quoted so no caller text is read as FTS syntax.
 */
export function ftsTerm(term: string): string {
  return term.endsWith("*") ? `${quoteFts(term.slice(0, -1))}*` : quoteFts(term);
}
