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
import { newestTeamDocument, rankTeam, type TeamRow } from "./documents.js";
import { compileTsquery, type TeamPass } from "./tsquery.js";

/**
 * search_history over the team store: the local query rules (search/history.ts) against
 * PostgreSQL. The query is compiled by the same planner code (compileHistoryQuery), each pass
 * becomes one tsquery (team/tsquery.ts), and each pass's rows are ordered, snipped and shaped into
 * hits by the same functions as locally:
 *   1. strict AND over the words as typed (identifiers and CJK runs as phrases);
 *   2. when short, strict AND over the words' stems (prefixes), without the rows already found;
 *   3. when still short, OR-relaxed over the units, a window of RELAXED_WINDOW ordered by
 *      conversation evidence, marked relaxed.
 * Filters are SQL conditions inside every pass; row-level security has already limited the rows
 * to the member's teams' projects. Ranking is PostgreSQL's ts_rank, not bm25 (docs/team.md
 * measures how far the top 10 differ).
 */

/**
 * ts_rank (higher is better, about 0.01–1) onto bm25's scale (lower is better, about −5 to −20),
 * so history-rank.ts's bonuses (−1 for a phrase or an exact form) weigh about as much as locally.
 */
const RANK_SCALE = 100;

export interface TeamSearchResult {
  hits: HistoryHit[];
  /** The newest document time the member can read, or null when they can read none. */
  indexedThrough: number | null;
}

function toRanked(row: TeamRow, index: number): RankedDocument {
  return {
    // A number only to tell a pass's rows apart while ordering them (history-rank.ts).
    id: index,
    hitId: row.hit_id,
    kind: row.kind,
    agent: row.agent,
    at: Number(row.at),
    project: row.project,
    session: row.session,
    job: row.job,
    run: row.run,
    message: row.message,
    conversation: row.conversation,
    cursor: row.cursor,
    role: row.role,
    title: row.title,
    conversationTitle: row.conversation_title,
    body: row.body,
    score: -row.rank * RANK_SCALE,
  };
}

async function pass(
  db: Queryable,
  query: HistoryQuery,
  which: TeamPass,
  filters: DocumentFilters,
  limit: number,
  exclude: readonly string[],
): Promise<RankedDocument[]> {
  const tsquery = compileTsquery(query, which);
  if (tsquery === "") return [];
  const rows = await rankTeam(db, tsquery, filters, limit, exclude);
  return ordered(rows.map(toRanked), query, which === "relaxed");
}

export async function searchTeamHistory(
  db: Queryable,
  text: string,
  filters: DocumentFilters,
  limit: number,
): Promise<TeamSearchResult> {
  const query = compileHistoryQuery(text, MAX_QUERY_TOKENS);
  const strict = await pass(db, query, "exact", filters, limit, []);
  if (strict.length < limit && compileTsquery(query, "forms") !== compileTsquery(query, "exact")) {
    const seen = strict.map((d) => d.hitId);
    strict.push(...(await pass(db, query, "forms", filters, limit - strict.length, seen)));
  }
  const hits = strict.map((d) => toHit(d, false, snippetOf(d, "fts5", query)));
  if (hits.length < limit && query.units.length > 1) {
    const seen = strict.map((d) => d.hitId);
    const relaxed = await pass(db, query, "relaxed", filters, Math.max(limit, RELAXED_WINDOW), seen);
    hits.push(
      ...relaxed.slice(0, limit - hits.length).map((d) => toHit(d, true, snippetOf(d, "fts5", query))),
    );
  }
  return { hits, indexedThrough: await newestTeamDocument(db) };
}
