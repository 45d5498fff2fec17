import type { Db } from "../store/open.js";
import { sampleBodies, type StoredTermStats } from "../store/term-stats.js";
import { queryTokens } from "./query.js";
import { prefixTerm } from "./stem.js";
import { buildImpactList, clearTermCache, documentFrequency, termCache } from "./term-cache.js";
import { HISTORY_WEIGHTS } from "./weights.js";

/** Documents sampled to find the index's common terms. */
export const TERM_SAMPLE = 4_000;
/** A term in at least this share of the sample is common: its first use would cost a full pass. */
export const COMMON_SHARE = 0.0025;
export const MAX_COMMON_TERMS = 2_000;

/** A token and, when it has one, the stem prefix a query of it searches (stem.ts: "index*"). */
const withStem = (token: string): string[] => {
  const stem = prefixTerm(token);
  return stem === token ? [token] : [token, stem];
};

/**
 * The index's most common terms, from an even sample of its documents: the terms whose counts
 * and impact lists cost the most to build on first use. A common word's stem prefix is one too:
 * queries search words through their stems (history-query.ts). Reads only.
 */
export function commonTerms(db: Db, sample = TERM_SAMPLE): string[] {
  const bodies = sampleBodies(db, sample);
  const docs = new Map<string, number>();
  for (const body of bodies)
    for (const t of new Set(queryTokens(body).flatMap(withStem))) docs.set(t, (docs.get(t) ?? 0) + 1);
  const min = Math.max(2, bodies.length * COMMON_SHARE);
  return [...docs]
    .filter(([, n]) => n >= min)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_COMMON_TERMS)
    .map(([t]) => t);
}

/**
 * Words in at least this many rows get a stored list too, found by reading the index's
 * vocabulary: a list built on first use reads each of the word's rows' lengths (about 2.5 µs a
 * row at 1M messages: 6.5 ms of a fresh process's first query for a word in 2,400 rows, which
 * a sample of TERM_SAMPLE documents finds only by chance).
 */
export const MIN_LIST_ROWS = 400;
/** Words taken from the vocabulary at most, the most frequent first (each list ≤ 32 KiB). */
export const MAX_VOCABULARY_TERMS = 8_000;

/** A term of the vocabulary and the rows holding it. */
export interface TermRows {
  term: string;
  rows: number;
}

/** The plain words of a vocabulary stretch frequent enough for a stored list. */
export function listWorthy(terms: readonly TermRows[]): TermRows[] {
  return terms.filter((t) => t.rows >= MIN_LIST_ROWS && /^[a-z0-9]+$/.test(t.term));
}

/**
 * The terms to keep statistics for: the sample's common terms (and stems) first, then the
 * vocabulary's frequent words, most frequent first, up to MAX_VOCABULARY_TERMS of them.
 */
export function termsToKeep(common: readonly string[], vocabulary: readonly TermRows[]): string[] {
  const seen = new Set(common);
  const words = [...vocabulary]
    .sort((a, b) => b.rows - a.rows || (a.term < b.term ? -1 : 1))
    .filter((t) => !seen.has(t.term))
    .slice(0, MAX_VOCABULARY_TERMS)
    .map((t) => t.term);
  return [...common, ...words];
}

/** One term's count and search_history's impact list, computed from the index as it is now (reads only). */
export function computeTermStats(db: Db, term: string): StoredTermStats {
  // A fresh cache: nothing carried or persisted may stand in for the computation.
  clearTermCache(db);
  const cache = termCache(db);
  cache.stored.set(term, null);
  const df = documentFrequency(db, cache, term);
  const list = buildImpactList(db, cache, term, HISTORY_WEIGHTS);
  return {
    term,
    df,
    through: list.through,
    builtRows: cache.totals.rows,
    idf: list.idf,
    avgdl: list.avgdl,
    complete: list.complete,
    ids: list.ids,
    impacts: list.impacts,
  };
}
