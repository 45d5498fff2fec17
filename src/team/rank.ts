import type { DocumentFilters } from "../search/filters.js";
import type { Queryable } from "./connect.js";
import { Params, teamFilterSql, type TeamFields } from "./documents.js";

/**
 * recall_team_documents' ranked reads (the search half of team/documents.ts, which owns the
 * table): how often each query unit occurs, and one ranked pass.
 *
 * bm25 weighs a word by its rarity (IDF); PostgreSQL's ts_rank does not. So each unit is ranked
 * on its own and weighted by an IDF from its row count, counted only up to COMMON_ROWS (a count
 * stops there: a common word costs no more than a rare one). A unit at the cap is common; a pass
 * whose units are all common ranks only the newest CAPPED_ROWS rows that match (the local planner
 * likewise settles for an approximate ranking of common words within a budget), so its cost does
 * not grow with the store. A pass with a rare unit ranks every row it matches (there are few).
 */

/** A unit counted this many times is common. */
export const COMMON_ROWS = 2_048;
/** Rows a pass of common units ranks: the newest that match. */
export const CAPPED_ROWS = 4_096;

/**
 * ts_rank's weights, {D, C, B, A}: the body (A) counts fully and the title (B) an eighth, as
 * search_history weighs them locally (tools.md "Ranking"). Normalization 1 divides by 1 + log of
 * the document's length, PostgreSQL's nearest to bm25's length normalization. Chosen by the top-10
 * overlap with local bm25 at 10k demo messages, 40 queries a class (rare / mixed / common /
 * identifier / filtered), before the IDF weights: ts_rank with 1: 1.0 / 0.58 / 0.52 / 0.91 / 0.83;
 * ts_rank_cd with 1: 1.0 / 0.52 / 0.42 / 0.85 / 0.80; ts_rank_cd with 0: 1.0 / 0.24 / 0.30 / 0.10
 * / 0.68; ts_rank with 2: 1.0 / 0.46 / 0.52 / 0.88 / 0.78.
 */
const rankOf = (q: string) => `ts_rank('{0, 0, 0.125, 1}', d.tsv, ${q}::tsquery, 1)`;

/** A ranked team row: a document's fields (`at` as PostgreSQL returns a bigint) and its rank (higher is better). */
export type TeamRow = Omit<TeamFields, "at"> & { at: string; rank: number };

/** Each unit's IDF weight and whether it is common, from one statement. */
export interface UnitWeight {
  query: string;
  weight: number;
  common: boolean;
}

/** bm25's IDF (FTS5's: ln((N − n + 0.5) / (n + 0.5)), at least 1e-6) of a unit in `n` of `total` rows. */
export function idf(n: number, total: number): number {
  return Math.max(1e-6, Math.log((total - n + 0.5) / (n + 0.5)));
}

export async function unitWeights(db: Queryable, units: readonly string[]): Promise<UnitWeight[]> {
  if (units.length === 0) return [];
  const p = new Params();
  const counts = units.map(
    (u) =>
      `(SELECT count(*) FROM (SELECT 1 FROM recall_team_documents d WHERE d.tsv @@ ${p.add(u)}::tsquery LIMIT ${COMMON_ROWS}) s)`,
  );
  // The table's size from the planner's statistics (pg_class is readable by every role).
  const row = (
    await db.query<{ counts: string[]; total: number }>(
      `SELECT ARRAY[${counts.join(", ")}] AS counts,
         greatest((SELECT reltuples FROM pg_class WHERE oid = 'recall_team_documents'::regclass), 1) AS total`,
      p.values,
    )
  ).rows[0]!;
  const total = Math.max(Number(row.total), COMMON_ROWS * 2);
  return units.map((query, i) => {
    const n = Number(row.counts[i]);
    return { query, weight: idf(n, total), common: n >= COMMON_ROWS };
  });
}

export interface TeamPass {
  units: readonly UnitWeight[];
  /** all: every unit (a strict pass); any: at least one (the relaxed pass). */
  match: "all" | "any";
  filters: DocumentFilters;
  limit: number;
  excludeHitIds: readonly string[];
}

/**
 * The candidate rows' keys: for a strict pass every match when some unit is rare, else the newest
 * CAPPED_ROWS; for the relaxed pass every row holding a rare unit plus the newest CAPPED_ROWS
 * holding a common one. Filters and exclusions are conditions of each branch.
 */
function candidates(pass: TeamPass, p: Params): string {
  const where = [...teamFilterSql(pass.filters, p)];
  if (pass.excludeHitIds.length > 0) where.push(`NOT d.hit_id = ANY(${p.add(pass.excludeHitIds)}::text[])`);
  const branch = (tsquery: string, capped: boolean) =>
    `(SELECT d.member, d.hit_id FROM recall_team_documents d WHERE ${[`d.tsv @@ ${p.add(tsquery)}::tsquery`, ...where].join(" AND ")}` +
    (capped ? ` ORDER BY d.at DESC LIMIT ${CAPPED_ROWS})` : ")");
  if (pass.match === "all") {
    const all = pass.units.map((u) => u.query).join(" & ");
    return branch(
      all,
      pass.units.every((u) => u.common),
    );
  }
  const rare = pass.units.filter((u) => !u.common).map((u) => u.query);
  const common = pass.units.filter((u) => u.common).map((u) => u.query);
  const parts = [
    ...(rare.length > 0 ? [branch(rare.join(" | "), false)] : []),
    ...(common.length > 0 ? [branch(common.join(" | "), true)] : []),
  ];
  return parts.join(" UNION ");
}

/** One pass: the `limit` best candidates by Σ IDF × ts_rank over the units, best first. */
export async function rankTeam(db: Queryable, pass: TeamPass): Promise<TeamRow[]> {
  if (pass.units.length === 0) return [];
  const p = new Params();
  const keys = candidates(pass, p);
  const rank = pass.units.map((u) => `${p.add(u.weight)}::float8 * ${rankOf(p.add(u.query))}`).join(" + ");
  const result = await db.query<TeamRow>(
    `WITH k AS (${keys})
     SELECT d.hit_id AS "hitId", d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
       d.conversation, d.cursor, d.role, d.title, d.conversation_title AS "conversationTitle", d.body,
       ${rank} AS rank
     FROM recall_team_documents d JOIN k ON k.member = d.member AND k.hit_id = d.hit_id
     ORDER BY rank DESC, d.at DESC, d.hit_id DESC LIMIT ${p.add(pass.limit)}`,
    p.values,
  );
  return result.rows;
}
