import type { Db } from "../store/open.js";
import { documentIdOfHit } from "../store/hit-ids.js";
import { pluckedStatement, statement } from "../store/statements.js";
import type { PagePosition } from "./cursor.js";

export interface RetainedRecord {
  conversation: string;
  ordinal: number;
  recordKey: string;
  hitId: string | null;
  at: number;
  role: string;
  kind: string;
  text: string;
  truncated: number;
}

export interface ConversationRow {
  id: string;
  source: string;
  agent: string;
  kind: string;
  project: string | null;
  session: string | null;
  parent: string | null;
  title: string | null;
}

export function conversationById(db: Db, id: string): ConversationRow | undefined {
  return statement(
    db,
    "SELECT id, source, agent, kind, project, session, parent, title FROM recall_conversations WHERE id = ?",
  ).get(id) as ConversationRow | undefined;
}

/** The conversation a hit belongs to, for callers that pass a hit id. */
export function conversationOfHit(db: Db, hitId: string): string | undefined {
  const id = documentIdOfHit(db, hitId);
  if (id === undefined) return undefined;
  const conversation = pluckedStatement(db, "SELECT conversation FROM recall_documents WHERE id = ?").get(
    id,
  ) as string | null;
  return conversation ?? undefined;
}

const RECORD_COLUMNS = `conversation, ordinal, record_key AS recordKey, hit_id AS hitId, at, role, kind, text, truncated`;

/**
 * The role of injected context records: what a coding CLI put in front of the model rather than
 * what anyone said (Claude Code's environment, model, agent and skill listings and other
 * attachments, `isMeta` lines and bare reminders; Codex's environment and instruction blocks;
 * opencode's synthetic parts). Never indexed; conversation views leave them out unless asked.
 */
export const CONTEXT_ROLE = "context";

/** Which retained records a conversation read returns. */
export interface RecordFilter {
  /** Also injected context records (role CONTEXT_ROLE). */
  context: boolean;
}

/** Every record, injected context included. */
export const EVERY_RECORD: RecordFilter = { context: true };

/**
 * The SQL condition RecordFilter keeps records by, with its one parameter (filterParam). Applied
 * in the WHERE clause, before LIMIT, so a page stays full and (time, ordinal) cursors stay valid.
 * A record whose projected text is empty (a turn that held only reasoning, which is never shown)
 * is never read: it would be a blank message in every reader.
 */
export const FILTER_CONDITION = `(? = 1 OR role <> '${CONTEXT_ROLE}') AND text <> ''`;
export const filterParam = (filter: RecordFilter): number => (filter.context ? 1 : 0);

/** The conversation's highest ordinal now (-1 when it has no records). */
export function highestOrdinal(db: Db, conversation: string): number {
  const row = statement(db, "SELECT max(ordinal) AS n FROM recall_records WHERE conversation = ?").get(
    conversation,
  ) as { n: number | null };
  return row.n ?? -1;
}

/**
 * Records after a position, paged in SQL; one extra row tells whether more follow. Those the
 * conversation held when paging began (ordinal <= `seen`) come first, in (time, ordinal) order;
 * then those appended since, in the order they were appended. Without `seen` (an older cursor),
 * every record is read in (time, ordinal) order. Records `filter` leaves out are skipped in SQL.
 */
export function recordsAfter(
  db: Db,
  conversation: string,
  after: PagePosition | null,
  limit: number,
  seen: number | undefined = after?.seen,
  filter: RecordFilter = EVERY_RECORD,
): RetainedRecord[] {
  const keep = filterParam(filter);
  const appendedAfter = (ordinal: number, n: number) =>
    statement(
      db,
      `SELECT ${RECORD_COLUMNS} FROM recall_records WHERE conversation = ? AND ordinal > ? AND ${FILTER_CONDITION}
       ORDER BY ordinal LIMIT ?`,
    ).all(conversation, ordinal, keep, n) as RetainedRecord[];
  // Past the records paging began with: only later appends remain.
  if (seen !== undefined && after && after.ordinal > seen) return appendedAfter(after.ordinal, limit);
  const rows = statement(
    db,
    `SELECT ${RECORD_COLUMNS} FROM recall_records
     WHERE conversation = ? AND (? IS NULL OR at > ? OR (at = ? AND ordinal > ?)) AND (? IS NULL OR ordinal <= ?)
       AND ${FILTER_CONDITION}
     ORDER BY at, ordinal
     LIMIT ?`,
  ).all(
    conversation,
    after ? 1 : null,
    after?.at ?? 0,
    after?.at ?? 0,
    after?.ordinal ?? 0,
    seen ?? null,
    seen ?? 0,
    keep,
    limit,
  ) as RetainedRecord[];
  if (seen === undefined || rows.length >= limit) return rows;
  return [...rows, ...appendedAfter(seen, limit - rows.length)];
}
