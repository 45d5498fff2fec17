import type { Db } from "../store/open.js";
import { pluckedStatement, statement } from "../store/statements.js";
import { BestFirst } from "./best-first.js";
import { mergeLists, usableSlots, type Listing } from "./impact-merge.js";
import { bm25Idf, bm25Score, countTerms } from "./bm25.js";
import { COST, OR_IMPACT_COST, PREFIX_WEIGHT } from "./plan-costs.js";
import { bm25Call, type ColumnWeights } from "./weights.js";
import { docsizeTotal } from "./fts-index.js";
import { ftsTerm } from "./stem.js";
import { markedCounts, type MarkedRow } from "./term-marks.js";
import { documentBody, recordTextColumn, type StoredBody } from "../store/document-text.js";
import {
  documentFrequency,
  dropImpactList,
  impactList,
  impactScale,
  probeFrequency,
  termCache,
  type ImpactList,
  type TermCache,
} from "./term-cache.js";

/**
 * Query planning for bm25-ranked FTS5 search: the same rows in the same order as one
 * bm25-ordered FTS5 statement with the filters inside (rankExact, the reference), cheaper,
 * choosing a plan by estimated cost (exact, enumerate, filtered, impact). Each plan, its bounds
 * and when an answer is approximate: docs/search.md, "The planner".
 */

export type PlanName = "exact" | "enumerate" | "filtered" | "impact" | "fallback";

export interface RankRequest {
  /** Distinct lower-case query tokens, in query order (the phrase order of the reference). */
  terms: readonly string[];
  match: "all" | "any";
  /** SQL conditions over alias `d` (recall_documents) and their parameters. */
  where: readonly string[];
  params: readonly unknown[];
  limit: number;
  excludeIds?: readonly number[];
  /** Rows the impact plan may score before it settles for an approximate answer (IMPACT_MAX_SCORED). */
  maxScored?: number;
  /** bm25's column weights: each tool ranks with its own (weights.ts). */
  weights: ColumnWeights;
}

export interface RankedRow {
  id: number;
  at: number;
  /** bm25 as FTS5 returns it: lower is better. */
  score: number;
}

export interface RankResult {
  rows: RankedRow[];
  plan: PlanName;
  /** False only when the impact plan stopped before proving its answer equal to the reference. */
  exact: boolean;
  /** Rows scored outside FTS5 (work done by enumerate and impact plans, or by an impact plan a fallback followed). */
  scored: number;
}

/** A query whose terms together occur in at most this many rows is cheap enough for the reference. */
export const EXACT_MAX_ROWS = 8_000;
/** An AND query listing at most this many rows is scored here rather than by the reference. */
export const ENUMERATE_MAX_ROWS = 1_000;
/**
 * Filters admitting at most this many rows have them scored outright. Measured at 1M messages
 * before this plan: two common words within one session took 0.6–1.6 s, through the fallback.
 */
export const FILTERED_MAX_ROWS = 2_000;
/** Rows the impact plan may score before it settles for an approximate answer. */
export const IMPACT_MAX_SCORED = 2_048;
/**
 * Knobs for the benchmark and tests: `exact` forces the reference plan everywhere (the baseline
 * fast plans are compared with), `maxScored` overrides IMPACT_MAX_SCORED and a request's own,
 * `observe` sees every plan chosen (counts and flags only).
 */
export const plannerTuning: {
  exact?: boolean;
  maxScored?: number;
  /** Overrides EXACT_MAX_ROWS / ENUMERATE_MAX_ROWS / IMPACT_DEPTH (tests reach every plan on small data). */
  exactMaxRows?: number;
  enumerateMaxRows?: number;
  /** Overrides FILTERED_MAX_ROWS. */
  filteredMaxRows?: number;
  depth?: number;
  /** Overrides FRESH_MAX_ROWS. */
  freshMaxRows?: number;
  observe?: (result: RankResult, request: RankRequest) => void;
} = {};

/** The reference expression: one FTS5 phrase per term, in order (see stem.ts ftsTerm). */
export const ftsExpression = (terms: readonly string[], match: "all" | "any") =>
  terms.map(ftsTerm).join(match === "all" ? " AND " : " OR ");
const expression = ftsExpression;

function conditions(request: RankRequest): { sql: string; params: unknown[] } {
  const where = [...request.where];
  const params = [...request.params];
  if (request.excludeIds?.length) {
    where.push("d.id NOT IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(request.excludeIds));
  }
  return { sql: where.map((w) => ` AND ${w}`).join(""), params };
}

/** The reference: one bm25-ordered FTS5 statement with every filter inside. */
export function rankExact(db: Db, request: RankRequest): RankedRow[] {
  if (request.terms.length === 0) return [];
  const { sql, params } = conditions(request);
  return statement(
    db,
    `SELECT d.id, d.at, ${bm25Call(request.weights)} AS score
     FROM recall_fts JOIN recall_documents d ON d.id = recall_fts.rowid
     WHERE recall_fts MATCH ?${sql}
     ORDER BY score, d.at DESC, d.id DESC
     LIMIT ?`,
  ).all(expression(request.terms, request.match), ...params, request.limit) as RankedRow[];
}

export function compareRows(a: RankedRow, b: RankedRow): number {
  return a.score - b.score || b.at - a.at || b.id - a.id;
}

/** Rows the cut-then-filter form of the reference reads at most before it gives up. */
const CUT_MAX = 4096;

/**
 * The reference's answer, computed in two steps: FTS5 ranks on its own (no join: most of the
 * reference's cost at a million rows is looking each match's document up before the sort), then
 * the best rows are looked up, filtered and tie-broken. The two agree whenever at least `limit`
 * rows passing the filters score strictly better than the last row read: every row not read
 * scores no better than that one. Scoring every match is FTS5's cost, whatever it keeps: after
 * a first cut too small for the filters, it ranks once more, keeping CUT_MAX rows, which are
 * checked in growing prefixes (a rejecting filter used to cost four full rankings). When the
 * filters reject even those, the reference itself runs.
 */
export function rankExactCut(db: Db, request: RankRequest): RankedRow[] {
  if (request.terms.length === 0) return [];
  const { sql, params } = conditions(request);
  const rank = (keep: number) =>
    statement(
      db,
      `SELECT rowid, ${bm25Call(request.weights)} FROM recall_fts WHERE recall_fts MATCH ? ORDER BY 2 LIMIT ?`,
    )
      .raw()
      .all(expression(request.terms, request.match), keep) as [number, number][];
  const lookup = statement(
    db,
    `SELECT d.id, d.at FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value WHERE 1${sql}`,
  );
  const first = Math.max(64, request.limit * 4);
  for (const keep of new Set([first, Math.max(first, CUT_MAX)])) {
    // Tied rows may come in another order from a longer ranking: each ranking is checked afresh.
    const ranked = rank(keep);
    const passing: RankedRow[] = [];
    let checked = 0;
    let read = first;
    do {
      const prefix = ranked.slice(checked, Math.min(read, ranked.length));
      read *= 4;
      checked += prefix.length;
      const score = new Map(prefix);
      const found = lookup.all(JSON.stringify(prefix.map((r) => r[0])), ...params) as {
        id: number;
        at: number;
      }[];
      for (const d of found) passing.push({ id: d.id, at: d.at, score: score.get(d.id)! });
      const complete = ranked.length < keep && checked === ranked.length;
      const boundary = complete ? Infinity : ranked[checked - 1]![1];
      const proven = passing.filter((r) => r.score < boundary);
      if (complete || proven.length >= request.limit) return proven.sort(compareRows).slice(0, request.limit);
    } while (checked < ranked.length);
  }
  return rankExact(db, request);
}

interface Scorer {
  idfs: number[];
  avgdl: number;
}

function scorer(db: Db, cache: TermCache, terms: readonly string[]): Scorer {
  const rows = cache.totals.rows;
  return {
    idfs: terms.map((t) => bm25Idf(rows, documentFrequency(db, cache, t))),
    avgdl: cache.totals.avgdl,
  };
}

interface DocRow extends StoredBody {
  id: number;
  at: number;
  title: string;
}

/**
 * Each row's length in tokens (all columns), from the index's docsize table; a row without one
 * (not in the text index yet) is missing from the map.
 */
function rowLengths(db: Db, ids: readonly number[]): Map<number, number> {
  const lengths = new Map<number, number>();
  if (ids.length === 0) return lengths;
  const rows = statement(
    db,
    "SELECT z.id, z.sz FROM json_each(?) j CROSS JOIN recall_fts_docsize z ON z.id = j.value",
  )
    .raw()
    .all(JSON.stringify(ids)) as [number, Buffer][];
  for (const [id, sz] of rows) lengths.set(id, docsizeTotal(sz));
  return lengths;
}

/**
 * Scores rows by id with FTS5's formula: term counts from the row's own text (ASCII rows are
 * tokenized here exactly as unicode61 does; any other row is counted by FTS5, term-marks.ts),
 * the row length from the index's docsize table. Rows failing the filters are dropped, and so
 * are rows lacking a term when every term is required, before their length is looked up: most
 * rows an AND query's impact plan reads lack one (at 1M demo messages, 1,608–1,747 of the first
 * 1,760 for three common words), and the length is a B-tree read of its own per row.
 */
function scoreRows(db: Db, request: RankRequest, s: Scorer, ids: readonly number[]): RankedRow[] {
  if (ids.length === 0) return [];
  const { sql, params } = conditions(request);
  const docs = statement(
    db,
    // CROSS JOIN keeps SQLite from scanning a filter's index instead of looking the ids up.
    `SELECT d.id, d.at, d.title, d.body, ${recordTextColumn(db)}
     FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value
     WHERE 1${sql}`,
  ).all(JSON.stringify(ids), ...params) as DocRow[];
  const freqs = new Map<number, number[]>();
  const unicode: MarkedRow[] = [];
  for (const doc of docs) {
    const body = documentBody(doc);
    const f = new Array<number>(request.terms.length).fill(0);
    if (
      countTerms(doc.title, request.terms, request.weights.title, f) &&
      countTerms(body, request.terms, request.weights.body, f)
    ) {
      freqs.set(doc.id, f);
    } else {
      unicode.push({ id: doc.id, title: doc.title, body });
    }
  }
  const marked = markedCounts(db, unicode, request.terms.map(ftsTerm));
  for (const [id, counts] of marked) {
    freqs.set(
      id,
      request.terms.map(
        (_, i) => counts.title[i]! * request.weights.title + counts.body[i]! * request.weights.body,
      ),
    );
  }
  const matching = docs.filter((doc) => {
    const f = freqs.get(doc.id)!;
    return request.match === "all" ? f.every((x) => x > 0) : f.some((x) => x > 0);
  });
  const lengths = rowLengths(
    db,
    matching.map((doc) => doc.id),
  );
  const out: RankedRow[] = [];
  for (const doc of matching) {
    const length = lengths.get(doc.id);
    if (length === undefined) continue;
    out.push({ id: doc.id, at: doc.at, score: bm25Score(s.idfs, freqs.get(doc.id)!, length, s.avgdl) });
  }
  return out;
}

/**
 * Rows matching an AND query, listed in rowid order without scoring: all of them, or the first
 * `cap + 1` when there are more (a sample the impact plan prunes with).
 * Prefix terms are left out of the listing when literal ones remain: FTS5 merges every token a
 * prefix covers before it intersects (about 60 ms for a common stem such as "index*" at a million
 * rows, even beside a term found in one row), and the scorer drops rows lacking any term, so
 * listing by the literal terms alone gives the same rows, or a longer list than `cap`.
 */

function listMatches(db: Db, request: RankRequest, cap: number): Listing {
  const list = (terms: readonly string[]) =>
    pluckedStatement(db, "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? LIMIT ?").all(
      expression(terms, request.match),
      cap + 1,
    ) as number[];
  const literal = request.terms.filter((t) => !isPrefix(t));
  let ids = list(literal.length > 0 ? literal : request.terms);
  // The literal terms alone may match more rows than all the terms do: ask for those exactly.
  if (ids.length > cap && literal.length > 0 && literal.length < request.terms.length)
    ids = list(request.terms);
  return { ids, complete: ids.length <= cap };
}

/**
 * Whether SQLite finds a listing's rows through indexes only (a table scan is unbounded), per
 * schema version: a first backfill builds the read indexes at its end, and a reader opened
 * before then must see them.
 */
const indexedListings = new WeakMap<Db, { schema: number; known: Map<string, boolean> }>();

function listedByIndex(db: Db, sql: string, params: readonly unknown[]): boolean {
  // A cached statement, as bridge/source.ts reads data_version: db.pragma() prepares on every call.
  const schema = pluckedStatement(db, "PRAGMA schema_version").get() as number;
  let listings = indexedListings.get(db);
  if (listings?.schema !== schema) indexedListings.set(db, (listings = { schema, known: new Map() }));
  const known = listings.known;
  let indexed = known.get(sql);
  if (indexed === undefined) {
    const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
    // `d`, or the rows and conversations the documents view reads (r, c: history-v16.ts).
    indexed = !steps.some((s) => /^SCAN [drc]\b/.test(s.detail));
    known.set(sql, indexed);
  }
  return indexed;
}

/**
 * The rows passing the request's filters, in rowid order, when an index lists them and they are
 * at most `cap`; else null. A filter SQLite could only check row by row (an agent or kind alone)
 * is never listed: a rare one would scan the whole table.
 */
function listFiltered(db: Db, request: RankRequest, cap: number): number[] | null {
  if (request.where.length === 0) return null;
  const { sql, params } = conditions(request);
  const listing = `SELECT d.id FROM recall_documents d WHERE 1${sql} LIMIT ?`;
  if (!listedByIndex(db, listing, [...params, cap + 1])) return null;
  const ids = pluckedStatement(db, listing).all(...params, cap + 1) as number[];
  return ids.length > cap ? null : ids;
}

function topK(rows: RankedRow[], k: number): RankedRow[] {
  return rows.sort(compareRows).slice(0, k);
}

/** The best rows of a listing scored here (enumerate, filtered): exact unless the term cache was carried. */
function scoreListed(
  db: Db,
  cache: TermCache,
  request: RankRequest,
  ids: readonly number[],
  plan: "enumerate" | "filtered",
): RankResult {
  const rows = scoreRows(db, request, scorer(db, cache, request.terms), ids);
  return { rows: topK(rows, request.limit), plan, exact: !cache.carried, scored: ids.length };
}

/**
 * Rows read from the impact lists and scored per batch, the first batches smaller (doubling up
 * to it): many answers are proven within a few dozen rows (at 1M, identifier queries scored 336
 * rows a query instead of 398).
 */
const IMPACT_BATCH = 256;
const FIRST_IMPACT_BATCH = 32;
/**
 * An approximate impact answer stops when its first STABLE_HEAD rows survive this many full
 * batches unchanged. One rather than two: at 1M messages the queries that stop so score 256
 * rows fewer (identifiers 736 instead of 992, three common words 992-1,504 instead of
 * 1,248-1,760; their first call in a fresh process 20-29 ms instead of 29-39), for a mean
 * top-10 overlap with the reference of 0.956 instead of 0.961 on the demo's common words and no
 * other change over 200 queries per class on either corpus.
 */
const STABLE_HEAD = 20;
const STABLE_BATCHES = 1;

const isPrefix = (term: string) => term.endsWith("*");

/** Candidates among an AND query's listed rows needed to judge the impact plan's chances by them. */
const MIN_REGION = 32;

/** Rows added since a list was built that a query scores itself rather than rebuild the list. */
export const FRESH_MAX_ROWS = 1024;

/**
 * Lists built before the index last grew miss its newest rows: those rows (at most
 * FRESH_MAX_ROWS matching the query) are returned to be scored outright; past that the stale
 * lists are rebuilt.
 */
function listsWithFresh(
  db: Db,
  cache: TermCache,
  request: RankRequest,
): { lists: ImpactList[]; fresh: number[] } {
  const build = () =>
    request.terms.map((t) => impactList(db, cache, t, request.weights, plannerTuning.depth));
  let lists = build();
  const since = Math.min(...lists.map((l) => l.through));
  if (since >= cache.top) return { lists, fresh: [] };
  const freshMax = plannerTuning.freshMaxRows ?? FRESH_MAX_ROWS;
  const fresh = pluckedStatement(
    db,
    "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? AND rowid > ? AND rowid <= ? LIMIT ?",
  ).all(expression(request.terms, request.match), since, cache.top, freshMax + 1) as number[];
  if (fresh.length <= freshMax) return { lists, fresh };
  for (const [i, list] of lists.entries())
    if (list.through < cache.top) dropImpactList(cache, request.terms[i]!);
  lists = build();
  return { lists, fresh: [] };
}

/**
 * Whether rows pass (hold every term of an AND query, meet the filters) too rarely for the budget
 * to find `limit` of them: the rows read first are the likeliest to pass, so the rate so far tends
 * to overstate the rest. The reference then runs at once instead of after the whole budget: at
 * 1M messages, three common words whose rows seldom meet ("error command session") scored 2,048
 * rows in vain (about 20 ms) before it.
 */
export function shortOfRows(found: number, scored: number, budget: number, limit: number): boolean {
  return found < limit && found * budget < limit * scored;
}

/**
 * The threshold algorithm over the terms' impact lists (see the module comment), reading the
 * lists whole: every row in some list gets an upper bound (its known impacts plus, for each list
 * it is missing from, that list's last impact — or nothing when the list is complete), rows are
 * scored in full in order of that bound, and the search stops once the K-th best score beats both
 * the next row's bound and τ, the bound of rows in no list at all. When it finds too few rows,
 * it says how many it scored in vain.
 */
function rankByImpact(
  db: Db,
  cache: TermCache,
  request: RankRequest,
  listed?: Listing,
): RankResult | { gaveUpAfter: number } {
  const { lists, fresh } = listsWithFresh(db, cache, request);
  // Carried counts drift with in-place updates and deletions: such answers are not proven exact.
  const provable = !cache.carried;
  const all = request.match === "all";
  // Carried lists' impacts, rescaled so they stay upper bounds (term-cache.ts impactScale).
  const scale = lists.map((l, t) => impactScale(db, cache, request.terms[t]!, l));
  const floor = lists.map((l, t) => l.floor * scale[t]!);
  // τ: rows in no list. With AND, a complete list means such rows lack that term altogether.
  const tau = all && lists.some((l) => l.complete) ? -Infinity : floor.reduce((a, b) => a + b, 0);

  // Rows are read best-guess first (known impacts plus each missing term's floor weighted by the
  // share of rows holding the term); the stopping test uses the exact upper bounds.
  const share = request.terms.map((t) =>
    Math.min(1, documentFrequency(db, cache, t) / Math.max(1, cache.totals.rows)),
  );
  // With AND, a row missing from a complete list lacks that term: it cannot match.
  const excludes = lists.map((l) => all && l.complete);
  const merged = mergeLists(lists, scale, floor, share, excludes);
  const { usable, region, regionPassing } = usableSlots(merged, fresh, listed);
  const { ids: slotIds, bound, guess } = merged;
  const budget = plannerTuning.maxScored ?? request.maxScored ?? IMPACT_MAX_SCORED;
  // The listed stretch's share of candidates that hold every term, against what the budget needs.
  // The stretch's passing rows count only at that rate: they are read in the lists' order like
  // any other, not first (1M demo, "query queue column": where its stretch held ten or more, the
  // plan scored 1,504 rows in vain, about 10 ms, before the reference ran).
  if (region >= MIN_REGION && regionPassing * Math.min(budget, usable.length) < request.limit * region)
    return { gaveUpAfter: 0 };
  const candidates = new BestFirst(usable, guess);
  const done = new Uint8Array(merged.size);
  const maxRemainingBound = () => {
    let max = -Infinity;
    for (const slot of usable) if (!done[slot] && bound[slot]! > max) max = bound[slot]!;
    return max;
  };

  const s = scorer(db, cache, request.terms);
  // Rows newer than a list are in no bound: score them all first.
  const found: RankedRow[] = scoreRows(db, request, s, fresh).sort(compareRows);
  if (found.length > request.limit) found.length = request.limit;
  const margin = (x: number) => x + Math.abs(x) * 1e-12;
  let scored = 0;
  // Approximate answers stop early once the head of the ranking stops changing.
  const head = Math.min(request.limit, STABLE_HEAD);
  let headKey = "";
  let stable = 0;
  // The budget is a cap (ties at its edge are not scored past it); a budget that is not a
  // positive number scores nothing, and the plan falls back.
  for (
    let size = FIRST_IMPACT_BATCH;
    candidates.remaining > 0 && scored < budget;
    size = Math.min(IMPACT_BATCH, size * 2)
  ) {
    const slice = candidates.take(Math.min(size, budget - scored));
    for (const slot of slice) done[slot] = 1;
    scored += slice.length;
    found.push(
      ...scoreRows(
        db,
        request,
        s,
        slice.map((slot) => slotIds[slot]!),
      ),
    );
    found.sort(compareRows);
    if (found.length > request.limit) found.length = request.limit;
    const kth = found[request.limit - 1];
    if (kth && -kth.score > margin(maxRemainingBound()) && -kth.score > margin(tau)) {
      return { rows: found, plan: "impact", exact: provable, scored };
    }
    // A head stable over small batches says little: only full batches count towards stopping.
    if (size < IMPACT_BATCH) continue;
    if (shortOfRows(found.length, scored, budget, request.limit)) return { gaveUpAfter: scored };
    const key = found
      .slice(0, head)
      .map((r) => r.id)
      .join(",");
    stable = found.length >= request.limit && key === headKey ? stable + 1 : 0;
    headKey = key;
    if (stable >= STABLE_BATCHES) break;
  }
  const kth = found[request.limit - 1];
  const listsDone = scored >= usable.length;
  if (listsDone && (tau === -Infinity || (kth !== undefined && -kth.score > margin(tau)))) {
    return { rows: found, plan: "impact", exact: provable, scored };
  }
  if (listsDone && tau === 0) return { rows: found, plan: "impact", exact: provable, scored };
  if (found.length >= request.limit) return { rows: found, plan: "impact", exact: false, scored };
  return { gaveUpAfter: scored };
}

/**
 * The top `limit` rows of a bm25-ranked FTS5 query with filters, in the reference's order
 * (score, then newer, then higher id). See the module comment for the plans.
 */
export function rankDocuments(db: Db, request: RankRequest): RankResult {
  const result = plan(db, request);
  plannerTuning.observe?.(result, request);
  return result;
}

function plan(db: Db, request: RankRequest): RankResult {
  if (plannerTuning.exact) return { rows: rankExact(db, request), plan: "exact", exact: true, scored: 0 };
  if (request.terms.length === 0 || request.limit <= 0)
    return { rows: [], plan: "exact", exact: true, scored: 0 };
  // Terms unicode61 would fold differently from plain lower-casing are left to FTS5 itself.
  if (!request.terms.every((t) => /^[a-z0-9]+\*?$/.test(t))) {
    return { rows: rankExactCut(db, request), plan: "exact", exact: true, scored: 0 };
  }
  const cache = termCache(db);
  const exactMax = plannerTuning.exactMaxRows ?? EXACT_MAX_ROWS;
  const probes = request.terms.map((t) => probeFrequency(db, cache, t, exactMax));
  const total = probes.reduce((a, n, i) => a + n * (isPrefix(request.terms[i]!) ? PREFIX_WEIGHT : 1), 0);
  if (total <= exactMax) return { rows: rankExactCut(db, request), plan: "exact", exact: true, scored: 0 };
  const admitted = listFiltered(db, request, plannerTuning.filteredMaxRows ?? FILTERED_MAX_ROWS);
  if (admitted) return scoreListed(db, cache, request, admitted, "filtered");
  // Past the cheap cases, plans are chosen by estimated cost; the exact document frequencies
  // this needs are what the reference would count anyway (and are cached for the generation).
  const df = request.terms.map((t) => documentFrequency(db, cache, t));
  const postings = df.reduce((a, n, i) => a + n * (isPrefix(request.terms[i]!) ? PREFIX_WEIGHT : 1), 0);
  const forced = plannerTuning.exactMaxRows !== undefined;
  let listed: Listing | undefined;
  if (request.match === "all") {
    listed = listMatches(db, request, plannerTuning.enumerateMaxRows ?? ENUMERATE_MAX_ROWS);
    if (listed.complete) {
      const ids = listed.ids;
      const reference = postings * (COST.idf + COST.walk) + ids.length * COST.ftsRow;
      if (!forced && reference < ids.length * COST.jsRow) {
        return { rows: rankExactCut(db, request), plan: "exact", exact: true, scored: 0 };
      }
      return scoreListed(db, cache, request, ids, "enumerate");
    }
  } else if (!forced && postings * (COST.idf + COST.ftsRow) < OR_IMPACT_COST) {
    return { rows: rankExactCut(db, request), plan: "exact", exact: true, scored: 0 };
  }
  // The impact lists hold each term's best rows: when too few of them pass the filters, so do
  // too few of the best rows FTS5 ranks for an AND query, and the cut would rank every match
  // twice in vain (measured at 1M, agent filter: 65–109 ms for the reference, 79–182 ms for
  // the cut). An OR query's best rows mix the terms and the cut still pays (111 against 176 ms).
  const fallback = request.where.length > 0 && request.match === "all" ? rankExact : rankExactCut;
  const impact = rankByImpact(db, cache, request, listed);
  if ("rows" in impact) return impact;
  return { rows: fallback(db, request), plan: "fallback", exact: true, scored: impact.gaveUpAfter };
}
