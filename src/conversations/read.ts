import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
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
  const row = statement(db, "SELECT conversation FROM recall_documents WHERE hit_id = ?").get(hitId) as
    { conversation: string | null } | undefined;
  return row?.conversation ?? undefined;
}

const RECORD_COLUMNS = `conversation, ordinal, record_key AS recordKey, hit_id AS hitId, at, role, kind, text, truncated`;

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
 * every record is read in (time, ordinal) order.
 */
export function recordsAfter(
  db: Db,
  conversation: string,
  after: PagePosition | null,
  limit: number,
  seen: number | undefined = after?.seen,
): RetainedRecord[] {
  const appendedAfter = (ordinal: number, n: number) =>
    statement(
      db,
      `SELECT ${RECORD_COLUMNS} FROM recall_records WHERE conversation = ? AND ordinal > ? ORDER BY ordinal LIMIT ?`,
    ).all(conversation, ordinal, n) as RetainedRecord[];
  // Past the records paging began with: only later appends remain.
  if (seen !== undefined && after && after.ordinal > seen) return appendedAfter(after.ordinal, limit);
  const rows = statement(
    db,
    `SELECT ${RECORD_COLUMNS} FROM recall_records
     WHERE conversation = ? AND (? IS NULL OR at > ? OR (at = ? AND ordinal > ?)) AND (? IS NULL OR ordinal <= ?)
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
    limit,
  ) as RetainedRecord[];
  if (seen === undefined || rows.length >= limit) return rows;
  return [...rows, ...appendedAfter(seen, limit - rows.length)];
}
