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

/** Records after a position in (time, ordinal) order, paged in SQL; one extra row tells whether more follow. */
export function recordsAfter(
  db: Db,
  conversation: string,
  after: PagePosition | null,
  limit: number,
): RetainedRecord[] {
  const sql = `SELECT conversation, ordinal, record_key AS recordKey, hit_id AS hitId, at, role, kind, text, truncated
    FROM recall_records
    WHERE conversation = ? AND (? IS NULL OR at > ? OR (at = ? AND ordinal > ?))
    ORDER BY at, ordinal
    LIMIT ?`;
  return statement(db, sql).all(
    conversation,
    after ? 1 : null,
    after?.at ?? 0,
    after?.at ?? 0,
    after?.ordinal ?? 0,
    limit,
  ) as RetainedRecord[];
}
