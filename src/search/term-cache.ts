import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { ftsTotals, type FtsTotals } from "./fts-index.js";
import { BODY_WEIGHT, TITLE_WEIGHT } from "./weights.js";
import { ftsTerm } from "./stem.js";

/**
 * Per-connection knowledge about query terms, valid for one generation of the index (see
 * ftsTotals): each term's document frequency and its impact list — the rows where the term alone
 * scores best, with that score, as FTS5's bm25() computes it. Everything here is derived from the
 * index by reads; a write to the index starts a new generation and empties the cache.
 */

/** Rows one impact list keeps. */
export const IMPACT_DEPTH = 4096;
/** Impact lists kept per connection (least recently used dropped first). */
export const MAX_LISTS = 512;

export interface ImpactList {
  ids: number[];
  /** Per-row share of the term in the score (positive, non-increasing): -bm25 of the term alone. */
  impacts: number[];
  /** True when the list holds every row containing the term. */
  complete: boolean;
  /** Milliseconds the build took (figures). */
  buildMs: number;
}

export interface TermCache {
  totals: FtsTotals;
  df: Map<string, number>;
  /** Lower bounds from bounded probes: "at least this many rows", for terms not counted yet. */
  atLeast: Map<string, number>;
  lists: Map<string, ImpactList>;
}

const caches = new WeakMap<Db, TermCache>();

/** The cache for the index's current generation (one small read decides). */
export function termCache(db: Db): TermCache {
  const totals = ftsTotals(db);
  let cache = caches.get(db);
  if (!cache || cache.totals.generation !== totals.generation) {
    cache = { totals, df: new Map(), atLeast: new Map(), lists: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

/** Forgets everything cached for this connection (tests, benchmarks of cold behaviour). */
export function clearTermCache(db: Db): void {
  caches.delete(db);
}

/**
 * How many rows contain the term, counting at most `cap + 1` (a bounded probe costs about a
 * microsecond per row, so a rare term is told from a common one cheaply). Exact when below the cap.
 */
export function probeFrequency(db: Db, cache: TermCache, term: string, cap: number): number {
  const known = cache.df.get(term);
  if (known !== undefined) return known;
  const floor = cache.atLeast.get(term);
  if (floor !== undefined && floor > cap) return floor;
  const row = statement(
    db,
    "SELECT count(*) AS n FROM (SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? LIMIT ?)",
  ).get(ftsTerm(term), cap + 1) as { n: number };
  if (row.n <= cap) cache.df.set(term, row.n);
  else cache.atLeast.set(term, row.n);
  return row.n;
}

/** The exact document frequency (FTS5 counts it the same way for bm25's IDF). */
export function documentFrequency(db: Db, cache: TermCache, term: string): number {
  const known = cache.df.get(term);
  if (known !== undefined) return known;
  const row = statement(db, "SELECT count(*) AS n FROM recall_fts WHERE recall_fts MATCH ?").get(
    ftsTerm(term),
  ) as {
    n: number;
  };
  cache.df.set(term, row.n);
  return row.n;
}

/**
 * The term's impact list: its best IMPACT_DEPTH rows by the term's own bm25 share, built with
 * one single-term FTS5 query (its cost grows with the term's document frequency, once per
 * generation) and kept for later queries.
 */
export function impactList(db: Db, cache: TermCache, term: string, depth = IMPACT_DEPTH): ImpactList {
  const key = depth === IMPACT_DEPTH ? term : `${term}\u0000${depth}`;
  const cached = cache.lists.get(key);
  if (cached) {
    cache.lists.delete(key);
    cache.lists.set(key, cached);
    return cached;
  }
  const started = performance.now();
  const rows = statement(
    db,
    `SELECT rowid, bm25(recall_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}) FROM recall_fts WHERE recall_fts MATCH ?
     ORDER BY 2 LIMIT ?`,
  )
    .raw()
    .all(ftsTerm(term), depth) as [number, number][];
  const list: ImpactList = {
    ids: rows.map((r) => r[0]),
    impacts: rows.map((r) => -r[1]),
    complete: rows.length < depth,
    buildMs: 0,
  };
  if (list.complete) cache.df.set(term, rows.length);
  list.buildMs = performance.now() - started;
  cache.lists.set(key, list);
  while (cache.lists.size > MAX_LISTS) {
    const oldest = cache.lists.keys().next().value as string;
    cache.lists.delete(oldest);
  }
  return list;
}
