import type { Db } from "../store/open.js";
import { documentIdOfHit, recordIdOfHit } from "../store/hit-ids.js";
import { pluckedStatement, statement } from "../store/statements.js";
import type { PagePosition } from "./cursor.js";
import { EVERY_RECORD, FILTER_CONDITION, filterParam, type RecordFilter } from "./read.js";

/**
 * Reads that open a retained conversation somewhere in its middle (get_conversation's `around`
 * opens a hit at its record, and `before` pages back from there). Records `filter` leaves out
 * (injected context, unless asked for) are skipped in SQL, as recordsAfter skips them.
 */

/** Positions of the records just before `before`, newest first, paged in SQL. */
export function positionsBefore(
  db: Db,
  conversation: string,
  before: PagePosition,
  limit: number,
  filter: RecordFilter = EVERY_RECORD,
): PagePosition[] {
  return statement(
    db,
    `SELECT at, ordinal FROM recall_records
     WHERE conversation = ? AND (at < ? OR (at = ? AND ordinal < ?)) AND ${FILTER_CONDITION}
     ORDER BY at DESC, ordinal DESC
     LIMIT ?`,
  ).all(conversation, before.at, before.at, before.ordinal, filterParam(filter), limit) as PagePosition[];
}

/**
 * Where a hit sits in its conversation: its record when it is retained there (and `filter` keeps
 * it), else the first record `filter` keeps at or after the time of the hit's document in this
 * conversation; undefined when the conversation has neither. A context record is never indexed,
 * so no document stands for one: a context record's id left out by `filter` is undefined.
 */
export function positionOfHit(
  db: Db,
  conversation: string,
  hitId: string,
  filter: RecordFilter = EVERY_RECORD,
): PagePosition | undefined {
  const keep = filterParam(filter);
  const record = recordIdOfHit(db, conversation, hitId);
  const own =
    record === undefined
      ? undefined
      : (statement(db, `SELECT at, ordinal FROM recall_records WHERE id = ? AND ${FILTER_CONDITION}`).get(
          record,
          keep,
        ) as PagePosition | undefined);
  if (own) return own;
  const document = documentIdOfHit(db, hitId);
  const at =
    document === undefined
      ? undefined
      : (pluckedStatement(db, "SELECT at FROM recall_documents WHERE id = ? AND conversation = ?").get(
          document,
          conversation,
        ) as number | undefined);
  if (at === undefined) return undefined;
  return statement(
    db,
    `SELECT at, ordinal FROM recall_records WHERE conversation = ? AND at >= ? AND ${FILTER_CONDITION}
     ORDER BY at, ordinal LIMIT 1`,
  ).get(conversation, at, keep) as PagePosition | undefined;
}

export interface TranscriptTarget {
  conversation: string;
  /** The hit at the cursor, when one was given and indexed. */
  hitId: string | null;
}

interface Candidate {
  conversation: string;
  hitId: string | null;
  parent: string | null;
  session: string | null;
}

/**
 * Resolves the history spec's transcript navigation key (`session`, `agent`, `from` cursor,
 * optional `child` for a sub-agent's transcript) to a retained conversation and the hit at that
 * cursor. Without `child` the session's main conversation (no parent) is preferred.
 */
export function locateTranscript(
  db: Db,
  key: { session: string; agent: string; from?: string; child?: string },
): TranscriptTarget | undefined {
  const candidates: Candidate[] =
    key.from !== undefined
      ? (statement(
          db,
          `SELECT d.conversation, d.hit_id AS hitId, c.parent, c.session FROM recall_documents d
           JOIN recall_conversations c ON c.id = d.conversation
           WHERE d.session = ? AND d.agent = ? AND d.cursor = ?
           LIMIT 20`,
        ).all(key.session, key.agent, key.from) as Candidate[])
      : [];
  if (candidates.length === 0) {
    // No indexed record at that cursor (or none given): the conversation itself, from its start.
    candidates.push(
      ...(statement(
        db,
        `SELECT id AS conversation, NULL AS hitId, parent, session FROM recall_conversations
         WHERE session = ? AND agent = ? LIMIT 50`,
      ).all(key.session, key.agent) as Candidate[]),
    );
  }
  const child = key.child;
  if (child === undefined) {
    const main = candidates.find((c) => c.parent === null) ?? candidates[0];
    return main ? { conversation: main.conversation, hitId: main.hitId } : undefined;
  }
  const inFile = candidates.find((c) => c.conversation === child || c.conversation.endsWith(`/${child}`));
  if (inFile) return { conversation: inFile.conversation, hitId: inFile.hitId };
  // A child with a session of its own (Codex threads, opencode child sessions), from its start.
  const own = statement(
    db,
    "SELECT id FROM recall_conversations WHERE session = ? AND agent = ? LIMIT 1",
  ).get(child, key.agent) as { id: string } | undefined;
  return own ? { conversation: own.id, hitId: null } : undefined;
}
