import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/**
 * Read-side SQL over bridge.db and archive.db (the tables schema.ts defines), for the bridge
 * source and the read services. Every query is a bounded keyset page; none writes.
 */

export interface MessageRow {
  /** Position in the table read: row_id (live), seq (insert queue, archive). */
  pos: number;
  id: string;
  sender: string;
  recipients: string;
  kind: string;
  body: string;
  conversation: string | null;
  project: string | null;
  job: string | null;
  createdAt: number;
}

const COLUMNS = `id, sender, recipients, kind, body, conversation, project, job, created_at AS createdAt`;

export function liveMessagesAfter(db: Db, after: number, limit: number): MessageRow[] {
  return statement(
    db,
    `SELECT row_id AS pos, ${COLUMNS} FROM messages WHERE row_id > ? ORDER BY row_id LIMIT ?`,
  ).all(after, limit) as MessageRow[];
}

export function capturedMessagesAfter(db: Db, after: number, limit: number): MessageRow[] {
  return statement(
    db,
    `SELECT seq AS pos, ${COLUMNS} FROM message_inserts WHERE seq > ? ORDER BY seq LIMIT ?`,
  ).all(after, limit) as MessageRow[];
}

export function coldMessagesAfter(archive: Db, after: number, limit: number): MessageRow[] {
  return statement(
    archive,
    `SELECT seq AS pos, ${COLUMNS} FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`,
  ).all(after, limit) as MessageRow[];
}

export interface QuestionRow {
  pos: number;
  id: string;
  asker: string;
  question: string;
  conversation: string | null;
  project: string | null;
  job: string | null;
  askedAt: number;
  answer: string | null;
  answeredBy: string | null;
  answeredAt: number | null;
}

const QUESTION = `SELECT q.seq AS pos, q.id, q.asker, q.question, q.conversation, q.project, q.job,
  q.asked_at AS askedAt, a.answer, a.answered_by AS answeredBy, a.answered_at AS answeredAt
  FROM questions q LEFT JOIN answers a ON a.question_id = q.id`;

export function questionsAfter(db: Db, after: number, limit: number): QuestionRow[] {
  return statement(db, `${QUESTION} WHERE q.seq > ? ORDER BY q.seq LIMIT ?`).all(
    after,
    limit,
  ) as QuestionRow[];
}

/** Questions answered after the answer cursor, with the answer's seq as `pos`. */
export function answeredAfter(db: Db, after: number, limit: number): QuestionRow[] {
  return statement(
    db,
    `SELECT a.seq AS pos, q.id, q.asker, q.question, q.conversation, q.project, q.job, q.asked_at AS askedAt,
       a.answer, a.answered_by AS answeredBy, a.answered_at AS answeredAt
     FROM answers a JOIN questions q ON q.id = a.question_id WHERE a.seq > ? ORDER BY a.seq LIMIT ?`,
  ).all(after, limit) as QuestionRow[];
}

export interface DecisionRow {
  pos: number;
  topic: string;
  rev: number;
  decision: string;
  rationale: string | null;
  decidedBy: string;
  project: string | null;
  job: string | null;
  decidedAt: number;
}

const DECISION = `SELECT seq AS pos, topic, rev, decision, rationale, decided_by AS decidedBy, project, job,
  decided_at AS decidedAt FROM decisions`;

export function decisionsAfter(db: Db, after: number, limit: number): DecisionRow[] {
  return statement(db, `${DECISION} WHERE seq > ? ORDER BY seq LIMIT ?`).all(after, limit) as DecisionRow[];
}

/** Revisions of one topic in order, from `afterRev`, at most `limit`. */
export function decisionRevisions(db: Db, topic: string, afterRev: number, limit: number): DecisionRow[] {
  return statement(db, `${DECISION} WHERE topic = ? AND rev > ? ORDER BY rev LIMIT ?`).all(
    topic,
    afterRev,
    limit,
  ) as DecisionRow[];
}

export interface BindingRow {
  pos: number;
  peer: string;
  agent: string;
  session: string;
  project: string | null;
  boundAt: number;
}

export function bindingsAfter(db: Db, after: number, limit: number): BindingRow[] {
  return statement(
    db,
    `SELECT seq AS pos, peer, agent, session, project, bound_at AS boundAt FROM bindings
     WHERE seq > ? ORDER BY seq LIMIT ?`,
  ).all(after, limit) as BindingRow[];
}

/** Whether a database holds the tables a reader needs (an older or foreign file is left alone). */
export function hasTables(db: Db, names: readonly string[]): boolean {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  const have = new Set(rows.map((r) => r.name));
  return names.every((n) => have.has(n));
}
