import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { bm25Idf, bm25Score, countAsciiTerms, isAscii } from "./bm25.js";
import { BODY_WEIGHT, TITLE_WEIGHT } from "./weights.js";
import { docsizeTotal } from "./fts-index.js";
import { ftsAll, ftsAny, quoteFts } from "./query.js";
import {
  documentFrequency,
  impactList,
  probeFrequency,
  termCache,
  type ImpactList,
  type TermCache,
} from "./term-cache.js";

/**
 * Query planning for bm25-ranked FTS5 search. The reference is one statement,
 *   SELECT … bm25(recall_fts, 3, 1) AS score … WHERE recall_fts MATCH ? AND <filters>
 *   ORDER BY score, d.at DESC, d.id DESC LIMIT ?,
 * whose cost grows with the number of rows containing ANY query term (FTS5 scores every one,
 * and computes each phrase's IDF by walking its whole posting list): 0.5–0.9 s for common words
 * over a million rows. The planner returns the same rows in the same order, cheaper:
 *
 * - exact: the reference itself, when every term is rare (few rows to score).
 * - enumerate: an AND query whose matching rows are few (a rare term among common ones): the
 *   rows are listed without scoring, then scored here with FTS5's own formula and numbers
 *   (bm25.ts; document frequencies and avgdl read from the index, cached per generation).
 * - impact: Fagin's threshold algorithm over per-term impact lists (each term's best rows by its
 *   own bm25 share, term-cache.ts). Rows are taken from the lists' heads in rounds and scored in
 *   full; a row no list has reached yet scores at most τ = Σ (the last impact read from each
 *   list), so once the K-th best row found beats τ no unseen row can enter the top K and the
 *   answer is exact. When the lists run out first (every term common and no row dominant), the
 *   answer is the best K among the rows read: approximate, reported as such, and measured by
 *   `npm run bench` as top-10 overlap with the reference.
 *
 * Filters are SQL conditions over `d` applied to every row read, in every plan; a plan that runs
 * out of rows passing them falls back to the reference, so filters never truncate a ranking.
 */

export type PlanName = "exact" | "enumerate" | "impact" | "fallback";

export interface RankRequest {
  /** Distinct lower-case query tokens, in query order (the phrase order of the reference). */
  terms: readonly string[];
  match: "all" | "any";
  /** SQL conditions over alias `d` (recall_documents) and their parameters. */
  where: readonly string[];
  params: readonly unknown[];
  limit: number;
  excludeIds?: readonly number[];
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
  /** Rows scored outside FTS5 (work done by enumerate and impact plans). */
  scored: number;
}

/** A query whose terms together occur in at most this many rows is cheap enough for the reference. */
export const EXACT_MAX_ROWS = 12_000;
/** An AND query listing at most this many rows is scored here rather than by the reference. */
export const ENUMERATE_MAX_ROWS = 4_000;
/** Rows the impact plan may score before it settles for an approximate answer. */
export const IMPACT_MAX_SCORED = 24_000;
const FIRST_DEPTH = 64;

const expression = (terms: readonly string[], match: "all" | "any") =>
  match === "all" ? ftsAll(terms) : ftsAny(terms);

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
    `SELECT d.id, d.at, bm25(recall_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}) AS score
     FROM recall_fts JOIN recall_documents d ON d.id = recall_fts.rowid
     WHERE recall_fts MATCH ?${sql}
     ORDER BY score, d.at DESC, d.id DESC
     LIMIT ?`,
  ).all(expression(request.terms, request.match), ...params, request.limit) as RankedRow[];
}

export function compareRows(a: RankedRow, b: RankedRow): number {
  return a.score - b.score || b.at - a.at || b.id - a.id;
}

interface Scorer {
  idfs: number[];
  avgdl: number;
  index: Map<string, number>;
}

function scorer(db: Db, cache: TermCache, terms: readonly string[]): Scorer {
  const rows = cache.totals.rows;
  return {
    idfs: terms.map((t) => bm25Idf(rows, documentFrequency(db, cache, t))),
    avgdl: cache.totals.avgdl,
    index: new Map(terms.map((t, i) => [t, i])),
  };
}

interface DocRow {
  id: number;
  at: number;
  title: string;
  body: string;
  sz: Buffer | null;
}

const HL_OPEN = "\x01";
const countOf = (text: string, ch: string) => {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
};

/**
 * Scores rows by id with FTS5's formula: term counts from the row's own text (ASCII rows are
 * tokenized here exactly as unicode61 does; any other row asks FTS5 to mark its matches), the
 * row length from the index's docsize table. Rows failing the filters are dropped, and so are
 * rows lacking a term when every term is required.
 */
function scoreRows(db: Db, request: RankRequest, s: Scorer, ids: readonly number[]): RankedRow[] {
  if (ids.length === 0) return [];
  const { sql, params } = conditions(request);
  const docs = statement(
    db,
    // CROSS JOIN keeps SQLite from scanning a filter's index instead of looking the ids up.
    `SELECT d.id, d.at, d.title, d.body, z.sz
     FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value CROSS JOIN recall_fts_docsize z ON z.id = d.id
     WHERE 1${sql}`,
  ).all(JSON.stringify(ids), ...params) as DocRow[];
  const freqs = new Map<number, number[]>();
  const unicode: DocRow[] = [];
  for (const doc of docs) {
    if (isAscii(doc.title) && isAscii(doc.body)) {
      const f = new Array<number>(request.terms.length).fill(0);
      countAsciiTerms(doc.title, s.index, TITLE_WEIGHT, f);
      countAsciiTerms(doc.body, s.index, BODY_WEIGHT, f);
      freqs.set(doc.id, f);
    } else {
      unicode.push(doc);
      freqs.set(doc.id, new Array<number>(request.terms.length).fill(0));
    }
  }
  if (unicode.length > 0) {
    const list = JSON.stringify(unicode.map((d) => d.id));
    const byId = new Map(unicode.map((d) => [d.id, d]));
    request.terms.forEach((term, i) => {
      const marked = statement(
        db,
        `SELECT rowid AS id, highlight(recall_fts, 0, char(1), char(2)) AS title, highlight(recall_fts, 1, char(1), char(2)) AS body
         FROM recall_fts WHERE recall_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
      ).all(quoteFts(term), list) as { id: number; title: string; body: string }[];
      for (const m of marked) {
        const doc = byId.get(m.id)!;
        const title = countOf(m.title, HL_OPEN) - countOf(doc.title, HL_OPEN);
        const body = countOf(m.body, HL_OPEN) - countOf(doc.body, HL_OPEN);
        freqs.get(m.id)![i] = title * TITLE_WEIGHT + body * BODY_WEIGHT;
      }
    });
  }
  const out: RankedRow[] = [];
  for (const doc of docs) {
    const f = freqs.get(doc.id)!;
    if (request.match === "all" ? f.some((x) => x === 0) : f.every((x) => x === 0)) continue;
    out.push({ id: doc.id, at: doc.at, score: bm25Score(s.idfs, f, docsizeTotal(doc.sz), s.avgdl) });
  }
  return out;
}

/** Rows matching an AND query, listed in rowid order without scoring; null when more than `cap`. */
function listMatches(db: Db, request: RankRequest, cap: number): number[] | null {
  const ids = statement(db, "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? LIMIT ?")
    .pluck()
    .all(expression(request.terms, request.match), cap + 1) as number[];
  return ids.length > cap ? null : ids;
}

function topK(rows: RankedRow[], k: number): RankedRow[] {
  return rows.sort(compareRows).slice(0, k);
}

/** Fagin's threshold algorithm over the terms' impact lists (see the module comment). */
function rankByImpact(db: Db, cache: TermCache, request: RankRequest): RankResult | null {
  const lists: ImpactList[] = request.terms.map((t) => impactList(db, cache, t));
  const s = scorer(db, cache, request.terms);
  const seen = new Set<number>();
  const found: RankedRow[] = [];
  let depth = 0;
  let next = FIRST_DEPTH;
  let scored = 0;
  const all = request.match === "all";
  for (;;) {
    const fresh: number[] = [];
    for (const list of lists) {
      const end = Math.min(next, list.ids.length);
      for (let i = depth; i < end; i++) {
        const id = list.ids[i]!;
        if (!seen.has(id)) {
          seen.add(id);
          fresh.push(id);
        }
      }
    }
    depth = next;
    scored += fresh.length;
    found.push(...scoreRows(db, request, s, fresh));
    found.sort(compareRows);
    if (found.length > request.limit) found.length = request.limit;

    // τ: the best score a row not read yet can have.
    let tau = 0;
    let impossible = false;
    let exhausted = true;
    for (const list of lists) {
      if (depth >= list.ids.length) {
        if (list.complete) {
          if (all) impossible = true;
          continue; // every row with this term has been read: it adds nothing to unseen rows
        }
        tau += list.impacts[list.ids.length - 1] ?? 0;
      } else {
        exhausted = false;
        tau += list.impacts[depth - 1]!;
      }
    }
    const complete = lists.every((l) => l.complete && depth >= l.ids.length);
    const kth = found[request.limit - 1];
    if (complete || impossible) return { rows: found, plan: "impact", exact: true, scored };
    if (kth && -kth.score > tau + Math.abs(tau) * 1e-12)
      return { rows: found, plan: "impact", exact: true, scored };
    if (exhausted || scored >= IMPACT_MAX_SCORED) {
      if (found.length >= request.limit) return { rows: found, plan: "impact", exact: false, scored };
      return null;
    }
    next = depth * 4;
  }
}

/**
 * The top `limit` rows of a bm25-ranked FTS5 query with filters, in the reference's order
 * (score, then newer, then higher id). See the module comment for the plans.
 */
export function rankDocuments(db: Db, request: RankRequest): RankResult {
  if (request.terms.length === 0 || request.limit <= 0)
    return { rows: [], plan: "exact", exact: true, scored: 0 };
  // Terms unicode61 would fold differently from plain lower-casing are left to FTS5 itself.
  if (!request.terms.every((t) => /^[a-z0-9]+$/.test(t))) {
    return { rows: rankExact(db, request), plan: "exact", exact: true, scored: 0 };
  }
  const cache = termCache(db);
  const probes = request.terms.map((t) => probeFrequency(db, cache, t, EXACT_MAX_ROWS));
  const total = probes.reduce((a, b) => a + b, 0);
  if (total <= EXACT_MAX_ROWS) return { rows: rankExact(db, request), plan: "exact", exact: true, scored: 0 };
  if (request.match === "all") {
    const ids = listMatches(db, request, ENUMERATE_MAX_ROWS);
    if (ids) {
      const rows = scoreRows(db, request, scorer(db, cache, request.terms), ids);
      return { rows: topK(rows, request.limit), plan: "enumerate", exact: true, scored: ids.length };
    }
  }
  return (
    rankByImpact(db, cache, request) ?? {
      rows: rankExact(db, request),
      plan: "fallback",
      exact: true,
      scored: 0,
    }
  );
}
