import type { DocumentFilters } from "../search/filters.js";
import type { RankedDocument } from "../search/engines/types.js";
import { compileHistoryQuery, type HistoryQuery } from "../search/history-query.js";
import {
  MAX_QUERY_TOKENS,
  RELAXED_WINDOW,
  ordered,
  snippetOf,
  toHit,
  type HistoryHit,
} from "../search/history.js";
import type { Queryable } from "./connect.js";
import { newestTeamDocument } from "./documents.js";
import { rankTeam, unitWeights, type TeamRow, type UnitWeight } from "./rank.js";
import { unitQuery, type TeamPass } from "./tsquery.js";

/**
 * search_history over the team store: the local query rules (search/history.ts) against
 * PostgreSQL. The query is compiled by the same planner code (compileHistoryQuery), each unit
 * becomes a tsquery (team/tsquery.ts) weighted by its IDF (team/rank.ts), and each pass's rows are
 * ordered, snipped and shaped into hits by the same functions as locally:
 *   1. strict AND over the words as typed (identifiers and CJK runs as phrases);
 *   2. when short, strict AND over the words' stems (prefixes), without the rows already found;
 *   3. when still short, OR-relaxed over the units, a window of RELAXED_WINDOW ordered by
 *      conversation evidence, marked relaxed.
 * Filters are SQL conditions inside every pass; row-level security has already limited the rows
 * to the member's teams' projects. Ranking is Σ IDF × PostgreSQL's ts_rank per unit, not bm25
 * (docs/team.md measures how far the top 10 differ).
 */

/**
 * Σ IDF × ts_rank (higher is better) onto bm25's scale (lower is better), so history-rank.ts's
 * bonuses (−1 for a phrase or an exact form) weigh about as locally. At 10k demo messages, 40
 * queries a class, the top-10 overlap with local search was the same within 0.01 at 5, 20 and 100.
 */
const RANK_SCALE = 20;

export interface TeamSearchResult {
  hits: HistoryHit[];
  /** The newest document time the member can read, or null when they can read none. */
  indexedThrough: number | null;
}

function toRanked({ rank, at, ...row }: TeamRow, index: number): RankedDocument {
  // The id only tells a pass's rows apart while ordering them (history-rank.ts).
  return { ...row, id: index, at: Number(at), score: -rank * RANK_SCALE };
}

/** A pass's distinct unit queries (team/tsquery.ts), in query order. */
function unitQueries(query: HistoryQuery, which: TeamPass): string[] {
  return [...new Set(query.units.map((u) => unitQuery(u, which)).filter(Boolean))];
}

async function pass(
  db: Queryable,
  query: HistoryQuery,
  which: TeamPass,
  weights: (units: string[]) => Promise<UnitWeight[]>,
  filters: DocumentFilters,
  limit: number,
  exclude: readonly string[],
): Promise<RankedDocument[]> {
  const units = await weights(unitQueries(query, which));
  if (units.length === 0) return [];
  const match = which === "relaxed" ? "any" : "all";
  const rows = await rankTeam(db, { units, match, filters, limit, excludeHitIds: exclude });
  return ordered(rows.map(toRanked), query, which === "relaxed");
}

export async function searchTeamHistory(
  db: Queryable,
  text: string,
  filters: DocumentFilters,
  limit: number,
): Promise<TeamSearchResult> {
  const query = compileHistoryQuery(text, MAX_QUERY_TOKENS);
  // Each unit query's weight is counted once per search, whichever passes share it.
  const known = new Map<string, UnitWeight>();
  const weights = async (units: string[]) => {
    const fresh = units.filter((u) => !known.has(u));
    for (const w of await unitWeights(db, fresh)) known.set(w.query, w);
    return units.map((u) => known.get(u)!);
  };
  const strict = await pass(db, query, "exact", weights, filters, limit, []);
  const forms = unitQueries(query, "forms").join(" & ");
  if (strict.length < limit && forms !== unitQueries(query, "exact").join(" & ")) {
    const seen = strict.map((d) => d.hitId);
    strict.push(...(await pass(db, query, "forms", weights, filters, limit - strict.length, seen)));
  }
  const hits = strict.map((d) => toHit(d, false, snippetOf(d, "fts5", query)));
  if (hits.length < limit && query.units.length > 1) {
    const seen = strict.map((d) => d.hitId);
    const relaxed = await pass(db, query, "relaxed", weights, filters, Math.max(limit, RELAXED_WINDOW), seen);
    hits.push(
      ...relaxed.slice(0, limit - hits.length).map((d) => toHit(d, true, snippetOf(d, "fts5", query))),
    );
  }
  return { hits, indexedThrough: await newestTeamDocument(db) };
}
