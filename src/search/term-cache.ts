import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { readRewrites } from "../store/rewrites.js";
import { readTermStats, type StoredTermStats } from "../store/term-stats.js";
import { topRowid } from "../store/top-rowid.js";
import { bm25Idf } from "./bm25.js";
import { ftsTotals, type FtsTotals } from "./fts-index.js";
import { bm25Call, HISTORY_WEIGHTS, sameWeights, type ColumnWeights } from "./weights.js";
import { ftsTerm } from "./stem.js";

/**
 * Per-connection knowledge about query terms: each term's document frequency and its impact list
 * — the rows where the term alone scores best, with that score, as FTS5's bm25() computes it.
 * Everything here is derived from the index by reads.
 *
 * The index changes every few seconds while agents work (every FTS5 flush is a new generation,
 * see ftsTotals), and rebuilding a common term's list costs 50–260 ms at 1M rows, so the cache
 * survives growth: each count and list remembers the highest rowid it saw (`through`). Counts
 * catch up by counting only the rows above it (a rowid-range read); lists stay as they were and
 * the planner scores the rows above their `through` itself (planner.ts). For this, history.db
 * never reuses a rowid (schema v8), and a document whose text changes takes a new one
 * (indexer/ingest.ts renewText): it is scored as a new row. The cache starts over when the
 * index shrinks or has grown by more than CARRY_GROWTH since it started (rows added, or given
 * new rowids), or documents were rewritten in place (a rebuild, an embedded chat's edited
 * message or title: store/rewrites.ts), so what it carries is never far from what a rebuild
 * would give; results that used carried knowledge are flagged inexact.
 */

/** Rows one impact list keeps. */
export const IMPACT_DEPTH = 4096;
/** Impact lists kept per connection (least recently used dropped first). */
export const MAX_LISTS = 512;

export interface ImpactList {
  /** The highest rowid in the index when the list was built: rows above it are not in it. */
  through: number;
  /** bm25's IDF of the term and avgdl when the list was built (see impactScale). */
  idf: number;
  avgdl: number;
  /**
   * The rows, ascending: the order the planner merges lists in, kept so (and persisted so, store/
   * term-stats.ts) that no process sorts a list before its first query.
   */
  ids: Float64Array;
  /** Each row's share of the term in the score (positive), parallel to ids: -bm25 of the term alone. */
  impacts: Float64Array;
  /** The smallest impact in the list: the most a row it leaves out can have (0 when complete). */
  floor: number;
  /** True when the list holds every row containing the term. */
  complete: boolean;
  /** Milliseconds the build took (figures). */
  buildMs: number;
}

/** Growth (share of rows) past which the cache starts over instead of catching up. */
export const CARRY_GROWTH = 0.05;

export interface Counted {
  n: number;
  /** The highest rowid the count covers. */
  through: number;
}

export interface TermCache {
  totals: FtsTotals;
  /** The highest rowid in the index now. */
  top: number;
  /** Rows in the index when this cache started (CARRY_GROWTH is measured from here). */
  baseRows: number;
  /**
   * The highest rowid when this cache started. Rows rewritten under new rowids (ingest.ts
   * renewText) add nothing to the row count, but each is counted again above a count's mark
   * while its old count stays: past CARRY_GROWTH of them the cache starts over too.
   */
  baseTop: number;
  /** True once the cache has lived through an index change (its answers are then inexact). */
  carried: boolean;
  df: Map<string, Counted>;
  /** Lower bounds from bounded probes: "at least this many rows", for terms not counted yet. */
  atLeast: Map<string, number>;
  lists: Map<string, ImpactList>;
  /** Persisted statistics looked up so far (null: none usable). */
  stored: Map<string, StoredTermStats | null>;
  /** The documents-rewritten counter when the cache started (store/rewrites.ts). */
  rewrites: string | null;
}

const caches = new WeakMap<Db, TermCache>();

/**
 * The cache for the index as it is now (one small read decides): the same knowledge when nothing
 * changed, carried over when the index only grew a little, else a new, empty cache.
 */
export function termCache(db: Db): TermCache {
  const totals = ftsTotals(db);
  let cache = caches.get(db);
  if (cache && cache.totals.generation === totals.generation) return cache;
  const top = topRowid(db);
  const rewrites = readRewrites(db);
  if (
    cache &&
    cache.rewrites === rewrites &&
    totals.rows >= cache.totals.rows &&
    top >= cache.top &&
    totals.rows <= cache.baseRows * (1 + CARRY_GROWTH) &&
    top - cache.baseTop <= cache.baseRows * CARRY_GROWTH
  ) {
    cache = { ...cache, totals, top, carried: true };
  } else {
    cache = {
      totals,
      top,
      baseRows: totals.rows,
      baseTop: top,
      carried: false,
      df: new Map(),
      atLeast: new Map(),
      lists: new Map(),
      stored: new Map(),
      rewrites,
    };
  }
  caches.set(db, cache);
  return cache;
}

/** Rows above `after` (and at most the cache's top) containing the term. */
function countAbove(db: Db, cache: TermCache, term: string, after: number): number {
  return (
    statement(
      db,
      "SELECT count(*) AS n FROM recall_fts WHERE recall_fts MATCH ? AND rowid > ? AND rowid <= ?",
    ).get(ftsTerm(term), after, cache.top) as { n: number }
  ).n;
}

/** A carried (or persisted) count brought up to the cache's top. */
function current(db: Db, cache: TermCache, term: string): number | undefined {
  let known = cache.df.get(term);
  if (!known) {
    const stored = usableStored(db, cache, term);
    if (!stored) return undefined;
    known = { n: stored.df, through: stored.through };
    cache.df.set(term, known);
  }
  if (known.through < cache.top) {
    known.n += countAbove(db, cache, term, known.through);
    known.through = cache.top;
  }
  return known.n;
}

/** Forgets everything cached for this connection (tests, benchmarks of cold behaviour). */
export function clearTermCache(db: Db): void {
  caches.delete(db);
}

/**
 * What a carried list's impacts are multiplied by to stay upper bounds of the term's share now:
 * the share is IDF × a length part, the IDF has moved with the counts, and the length part grows
 * by at most avgdl's ratio when avgdl grows (bm25.ts). 1 for a list built on the index as it is.
 */
export function impactScale(db: Db, cache: TermCache, term: string, list: ImpactList): number {
  if (list.through >= cache.top && list.avgdl === cache.totals.avgdl) return 1;
  const idf = bm25Idf(cache.totals.rows, documentFrequency(db, cache, term));
  return (idf / list.idf) * Math.max(1, cache.totals.avgdl / list.avgdl);
}

/** Where the cache keeps a term's list for these weights and depth. */
export const impactListKey = (term: string, weights: ColumnWeights, depth = IMPACT_DEPTH) =>
  `${term}\u0000${weights.title},${weights.body}\u0000${depth}`;

/** Forgets one term's impact lists (the planner found them too far behind the index). */
export function dropImpactList(cache: TermCache, term: string): void {
  for (const key of [...cache.lists.keys()]) if (key.startsWith(`${term}\u0000`)) cache.lists.delete(key);
}

/**
 * How many rows contain the term, counting at most `cap + 1` (a bounded probe costs about a
 * microsecond per row, so a rare term is told from a common one cheaply). Exact when below the cap.
 */
export function probeFrequency(db: Db, cache: TermCache, term: string, cap: number): number {
  const known = current(db, cache, term);
  if (known !== undefined) return known;
  // A floor stays a floor as the index grows.
  const floor = cache.atLeast.get(term);
  if (floor !== undefined && floor > cap) return floor;
  const row = statement(
    db,
    "SELECT count(*) AS n FROM (SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? AND rowid <= ? LIMIT ?)",
  ).get(ftsTerm(term), cache.top, cap + 1) as { n: number };
  if (row.n <= cap) cache.df.set(term, { n: row.n, through: cache.top });
  else cache.atLeast.set(term, row.n);
  return row.n;
}

/** The exact document frequency (FTS5 counts it the same way for bm25's IDF). */
export function documentFrequency(db: Db, cache: TermCache, term: string): number {
  const known = current(db, cache, term);
  if (known !== undefined) return known;
  const n = countAbove(db, cache, term, 0);
  cache.df.set(term, { n, through: cache.top });
  return n;
}

/**
 * The term's impact list: its best IMPACT_DEPTH rows by the term's own bm25 share, built with
 * one single-term FTS5 query (its cost grows with the term's document frequency, once per
 * generation) and kept for later queries.
 */
export function impactList(
  db: Db,
  cache: TermCache,
  term: string,
  weights: ColumnWeights,
  depth = IMPACT_DEPTH,
): ImpactList {
  const key = impactListKey(term, weights, depth);
  const cached = cache.lists.get(key);
  if (cached) {
    cache.lists.delete(key);
    cache.lists.set(key, cached);
    return cached;
  }
  // Persisted lists are search_history's (term-stats.ts builds them with its weights).
  const stored =
    depth === IMPACT_DEPTH && sameWeights(weights, HISTORY_WEIGHTS)
      ? usableStored(db, cache, term)
      : undefined;
  const list = stored
    ? {
        through: stored.through,
        idf: stored.idf,
        avgdl: stored.avgdl,
        ids: stored.ids,
        impacts: stored.impacts,
        floor: impactFloor(stored.impacts, stored.complete),
        complete: stored.complete,
        buildMs: 0,
      }
    : buildImpactList(db, cache, term, weights, depth);
  cache.lists.set(key, list);
  while (cache.lists.size > MAX_LISTS) {
    const oldest = cache.lists.keys().next().value as string;
    cache.lists.delete(oldest);
  }
  return list;
}

/**
 * The term's impact list computed from the index as it is now: one single-term FTS5 query that
 * ranks by the term's bm25 and hands the best rows back in rowid order.
 */
export function buildImpactList(
  db: Db,
  cache: TermCache,
  term: string,
  weights: ColumnWeights,
  depth = IMPACT_DEPTH,
): ImpactList {
  const started = performance.now();
  const rows = statement(
    db,
    `SELECT rowid, -score FROM (
       SELECT rowid, ${bm25Call(weights)} AS score FROM recall_fts WHERE recall_fts MATCH ?
       AND rowid <= ? ORDER BY score LIMIT ?
     ) ORDER BY rowid`,
  )
    .raw()
    .all(ftsTerm(term), cache.top, depth) as [number, number][];
  const complete = rows.length < depth;
  const impacts = Float64Array.from(rows, (r) => r[1]);
  const list: ImpactList = {
    through: cache.top,
    idf: bm25Idf(cache.totals.rows, documentFrequency(db, cache, term)),
    avgdl: cache.totals.avgdl,
    ids: Float64Array.from(rows, (r) => r[0]),
    impacts,
    floor: impactFloor(impacts, complete),
    complete,
    buildMs: 0,
  };
  if (list.complete) cache.df.set(term, { n: rows.length, through: cache.top });
  list.buildMs = performance.now() - started;
  return list;
}

/** What a row an incomplete list leaves out can score at most: the list's smallest impact. */
function impactFloor(impacts: Float64Array, complete: boolean): number {
  if (complete || impacts.length === 0) return 0;
  let min = Infinity;
  for (const impact of impacts) if (impact < min) min = impact;
  return min;
}

/**
 * Statistics the broker persisted for the term (store/term-stats.ts), when they describe this
 * index closely enough to carry: built at most CARRY_GROWTH rows (and rowids) ago and not past
 * its top. Using them makes the cache's answers inexact, as carried knowledge does.
 */
function usableStored(db: Db, cache: TermCache, term: string): StoredTermStats | undefined {
  const seen = cache.stored.get(term);
  if (seen !== undefined) return seen ?? undefined;
  const stored = readTermStats(db, term);
  cache.stored.set(term, null);
  if (
    !stored ||
    stored.through > cache.top ||
    stored.builtRows > cache.totals.rows ||
    cache.totals.rows > stored.builtRows * (1 + CARRY_GROWTH) ||
    // Rows rewritten under new rowids since (see TermCache.baseTop), not only rows added.
    cache.top - stored.through > stored.builtRows * CARRY_GROWTH
  )
    return undefined;
  if (stored.through !== cache.top || stored.builtRows !== cache.totals.rows) cache.carried = true;
  cache.stored.set(term, stored);
  return stored;
}
