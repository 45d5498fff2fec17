import type { RankedDocument } from "../search/engines/types.js";
import type { DocumentFilters } from "../search/filters.js";
import type { Queryable } from "./connect.js";

/**
 * recall_team_documents' SQL (the table is defined in team/schema.ts): batched upserts and
 * forgets for the pusher, one ranked pass for search, reads for get_conversation. Every read
 * runs as the member's own role, so row-level security has already cut the rows to their teams'
 * projects; the filters below narrow inside the same statement, never after it.
 */

/**
 * The fields of a document the team store keeps: a ranked document's (search/engines/types.ts)
 * without the local row id and score, in a project (team rows always have one).
 */
export type TeamFields = Omit<RankedDocument, "id" | "score" | "project"> & { project: string };

/** One document as pushed: a local document's projected, redacted fields (team/push.ts). */
export interface TeamDocument extends TeamFields {
  /** tsvector literals of the title and the body (team/tsquery.ts). */
  titleTsv: string;
  bodyTsv: string;
}

const COLUMNS = [
  ["hitId", "hit_id", "text"],
  ["kind", "kind", "text"],
  ["agent", "agent", "text"],
  ["at", "at", "bigint"],
  ["project", "project", "text"],
  ["session", "session", "text"],
  ["job", "job", "text"],
  ["run", "run", "text"],
  ["message", "message", "text"],
  ["conversation", "conversation", "text"],
  ["cursor", "cursor", "text"],
  ["role", "role", "text"],
  ["title", "title", "text"],
  ["conversationTitle", "conversation_title", "text"],
  ["body", "body", "text"],
  ["titleTsv", "title_tsv", "text"],
  ["bodyTsv", "body_tsv", "text"],
] as const;

const UPDATABLE = COLUMNS.filter(([, c]) => !["hit_id", "title_tsv", "body_tsv"].includes(c)).map(
  ([, c]) => c,
);

/**
 * One statement per batch: the rows as parallel arrays (unnest), upserted by (member, hit id),
 * so a batch sent twice (a push resumed after a kill) changes nothing. A hit the member forgot
 * (a tombstone) is skipped.
 */
const UPSERT = `
INSERT INTO recall_team_documents (machine, ${UPDATABLE.join(", ")}, hit_id, tsv)
SELECT $1, ${UPDATABLE.map((c) => `t.${c}`).join(", ")}, t.hit_id,
       setweight(t.title_tsv::tsvector, 'B') || setweight(t.body_tsv::tsvector, 'A')
FROM unnest(${COLUMNS.map(([, , type], i) => `$${i + 2}::${type}[]`).join(", ")})
  AS t(${COLUMNS.map(([, c]) => c).join(", ")})
WHERE NOT EXISTS (SELECT 1 FROM recall_team_tombstones x WHERE x.member = current_user AND x.hit_id = t.hit_id)
ON CONFLICT (member, hit_id) DO UPDATE SET machine = excluded.machine,
  ${UPDATABLE.map((c) => `${c} = excluded.${c}`).join(", ")}, tsv = excluded.tsv, pushed_at = now()`;

/** Upserts one batch; returns the rows written. */
export async function upsertDocuments(
  db: Queryable,
  machine: string,
  docs: readonly TeamDocument[],
): Promise<number> {
  if (docs.length === 0) return 0;
  const arrays = COLUMNS.map(([key]) => docs.map((d) => d[key]));
  const result = await db.query(UPSERT, [machine, ...arrays]);
  return result.rowCount ?? 0;
}

/** A local tombstone (recall_tombstones) as the pusher forwards it. */
export interface ForgetRule {
  scope: "session" | "project" | "range";
  value: string | null;
  since: number | null;
  until: number | null;
}

/** The member's own rows a forget rule covers, as SQL over `d`. */
function forgetWhere(rule: ForgetRule): { where: string; params: unknown[] } {
  if (rule.scope === "session")
    return { where: "(d.session = $1 OR d.conversation = $1)", params: [rule.value] };
  if (rule.scope === "project") return { where: "d.project = $1", params: [rule.value] };
  return { where: "d.at BETWEEN $1 AND $2", params: [rule.since, rule.until] };
}

/**
 * Deletes the member's rows a local forget covered and keeps their hit ids as tombstones, in one
 * statement; returns the rows deleted.
 */
export async function forgetDocuments(db: Queryable, rule: ForgetRule): Promise<number> {
  const { where, params } = forgetWhere(rule);
  const result = await db.query(
    `WITH gone AS (DELETE FROM recall_team_documents d WHERE d.member = current_user AND ${where} RETURNING d.hit_id)
     INSERT INTO recall_team_tombstones (hit_id) SELECT DISTINCT hit_id FROM gone ON CONFLICT DO NOTHING`,
    params,
  );
  return result.rowCount ?? 0;
}

/** Positional parameters for one statement, numbered in order. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** search/filters.ts's conditions over alias `d`, in PostgreSQL (no bridge participants here). */
export function teamFilterSql(filters: DocumentFilters, p: Params): string[] {
  const where: string[] = [];
  if (filters.project !== undefined) {
    const forms = [
      ...new Set([filters.project, filters.project.normalize("NFC"), filters.project.normalize("NFD")]),
    ];
    where.push(`d.project = ANY(${p.add(forms)}::text[])`);
  }
  if (filters.sessions !== undefined) where.push(`d.session = ANY(${p.add(filters.sessions)}::text[])`);
  if (filters.job !== undefined) {
    const job = p.add(filters.job);
    where.push(
      `(d.job = ${job} OR (d.kind = 'transcript' AND d.session IN (SELECT r.session FROM recall_team_documents r
        WHERE r.job = ${job} AND r.kind = 'run' AND r.session IS NOT NULL)))`,
    );
  }
  if (filters.agent !== undefined) where.push(`d.agent = ${p.add(filters.agent)}`);
  if (filters.agents !== undefined) where.push(`d.agent = ANY(${p.add([...filters.agents])}::text[])`);
  if (filters.kind !== undefined) where.push(`d.kind = ${p.add(filters.kind)}`);
  if (filters.since !== undefined) where.push(`d.at >= ${p.add(filters.since)}`);
  if (filters.until !== undefined) where.push(`d.at <= ${p.add(filters.until)}`);
  if (filters.excludeSessions !== undefined && filters.excludeSessions.length > 0)
    where.push(`(d.session IS NULL OR NOT d.session = ANY(${p.add(filters.excludeSessions)}::text[]))`);
  return where;
}

/** The newest document time the member can read (team search's coverage), or null. */
export async function newestTeamDocument(db: Queryable): Promise<number | null> {
  // Backwards along the (at) index to the first row the member may read: not a scan of every row.
  const result = await db.query<{ at: string | null }>(
    "SELECT at FROM recall_team_documents ORDER BY at DESC LIMIT 1",
  );
  const at = result.rows[0]?.at;
  return at === null || at === undefined ? null : Number(at);
}

/** A team conversation's record as get_conversation pages it: a pushed document, in time order. */
export interface TeamRecordRow {
  hit_id: string;
  role: string;
  at: string;
  kind: string;
  body: string;
}

/** Where a page starts: after (or before) this record, in (at, hit id) order. */
export interface TeamPosition {
  at: number;
  hitId: string;
}

/** The conversation `id` names (a conversation id, or a hit id of one) among readable rows, or null. */
export async function teamConversationOf(db: Queryable, id: string): Promise<string | null> {
  const own = await db.query("SELECT 1 FROM recall_team_documents WHERE conversation = $1 LIMIT 1", [id]);
  if (own.rowCount) return id;
  const hit = await db.query<{ conversation: string | null }>(
    "SELECT conversation FROM recall_team_documents WHERE hit_id = $1 AND conversation IS NOT NULL LIMIT 1",
    [id],
  );
  return hit.rows[0]?.conversation ?? null;
}

/** The position of a hit in its conversation, or null when the conversation holds no such hit. */
export async function teamPositionOf(
  db: Queryable,
  conversation: string,
  hitId: string,
): Promise<TeamPosition | null> {
  const row = (
    await db.query<{ at: string }>(
      "SELECT at FROM recall_team_documents WHERE conversation = $1 AND hit_id = $2 LIMIT 1",
      [conversation, hitId],
    )
  ).rows[0];
  return row ? { at: Number(row.at), hitId } : null;
}

/**
 * Up to `limit` records of a conversation after `from` (forward) or before it (backward, returned
 * newest first), by the (conversation, at, hit_id) index. Two machines of one member push one
 * copy (the key is the member and hit id); two members' copies of one hit are one record here.
 */
export async function teamRecords(
  db: Queryable,
  conversation: string,
  from: TeamPosition | null,
  direction: "forward" | "backward",
  limit: number,
): Promise<TeamRecordRow[]> {
  const forward = direction === "forward";
  const cmp = forward ? ">" : "<";
  const order = forward ? "ASC" : "DESC";
  const after = from === null ? "" : `AND (d.at, d.hit_id) ${cmp} ($2::bigint, $3::text)`;
  const params: unknown[] = from === null ? [conversation] : [conversation, from.at, from.hitId];
  params.push(limit);
  const result = await db.query<TeamRecordRow>(
    `SELECT DISTINCT ON (d.at, d.hit_id) d.hit_id, d.role, d.at, d.kind, d.body
     FROM recall_team_documents d WHERE d.conversation = $1 ${after}
     ORDER BY d.at ${order}, d.hit_id ${order} LIMIT $${params.length}`,
    params,
  );
  return result.rows;
}

export { Params };
