import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/**
 * FTS rows of new documents, inserted after the documents themselves. FTS5 flushes its pending
 * terms into a new segment whenever a statement that touches the documents table (it has
 * triggers, so it opens a statement savepoint) runs after FTS writes in the same transaction:
 * inserting documents and their FTS rows in turn writes many tiny segments, each merged again
 * later. Queued here, a batch's (or a backfill group's) rows go in together: one segment.
 */
export interface FtsRow {
  title: string;
  body: string;
}

interface Queue {
  rows: Map<number, FtsRow>;
  bytes: number;
  /** A backfill group owns the transaction: batches leave their rows for the group's end. */
  grouped: boolean;
}

/** Past this many queued UTF-16 code units the rows go in early (bounded memory). */
export const FTS_QUEUE_MAX_CHARS = 8 * 1024 * 1024;
const INSERT_FTS = `INSERT INTO recall_fts (rowid, title, body) VALUES (?, ?, ?)`;
const queues = new WeakMap<Db, Queue>();

function queueOf(db: Db): Queue {
  let q = queues.get(db);
  if (!q) queues.set(db, (q = { rows: new Map(), bytes: 0, grouped: false }));
  return q;
}

export function queueFts(db: Db, id: number, row: FtsRow): void {
  const q = queueOf(db);
  q.rows.set(id, row);
  q.bytes += row.title.length + row.body.length;
  if (q.bytes > FTS_QUEUE_MAX_CHARS) flushFts(db);
}

/**
 * Inserts every queued row now: before a statement whose trigger deletes or rewrites a
 * document's FTS row (FTS5 must hold the row it is told to delete), and at the end.
 */
export function flushFts(db: Db): void {
  const q = queues.get(db);
  if (!q || q.rows.size === 0) return;
  const insert = statement(db, INSERT_FTS);
  for (const [id, row] of q.rows) insert.run(id, row.title, row.body);
  q.rows.clear();
  q.bytes = 0;
}

/** Inserts one queued row now (its document is about to be rewritten or deleted by a trigger). */
export function flushFtsRow(db: Db, id: number): void {
  const q = queues.get(db);
  const row = q?.rows.get(id);
  if (!q || !row) return;
  statement(db, INSERT_FTS).run(id, row.title, row.body);
  q.rows.delete(id);
  q.bytes -= row.title.length + row.body.length;
}

const contentless = new WeakMap<Db, boolean>();

/**
 * Whether writers keep the FTS rows of changed and renumbered documents themselves: history.db's
 * FTS5 table holds no text since schema v10 and has only a delete trigger; an embedded index's
 * external-content table is kept by its update trigger.
 */
function writersKeepFts(db: Db): boolean {
  let own = contentless.get(db);
  if (own === undefined) {
    const has = (type: string, name: string) =>
      statement(db, "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?").get(type, name) !== undefined;
    own = has("table", "recall_fts") && !has("trigger", "recall_documents_fts_update");
    contentless.set(db, own);
  }
  return own;
}

/** A document's text changed in place: its FTS row now indexes `row` (nothing without FTS5). */
export function replaceFts(db: Db, id: number, row: FtsRow): void {
  flushFtsRow(db, id);
  if (writersKeepFts(db))
    statement(db, "INSERT OR REPLACE INTO recall_fts (rowid, title, body) VALUES (?, ?, ?)").run(
      id,
      row.title,
      row.body,
    );
}

/** A document moved from rowid `from` to `to` with new text (ingest.ts renewText). */
export function moveFts(db: Db, from: number, to: number, row: FtsRow): void {
  flushFtsRow(db, from);
  if (!writersKeepFts(db)) return;
  statement(db, "DELETE FROM recall_fts WHERE rowid = ?").run(from);
  queueFts(db, to, row);
}

/** The end of one batch's writes: flush unless a backfill group flushes at its own end. */
export function endBatchFts(db: Db): void {
  if (!queues.get(db)?.grouped) flushFts(db);
}

/**
 * Runs a backfill group (inside its transaction): batches queue their rows for the group's end.
 * On failure the queue is dropped with the rolled-back transaction.
 */
export function ftsGroup<T>(db: Db, run: () => T): T {
  const q = queueOf(db);
  q.grouped = true;
  try {
    const result = run();
    flushFts(db);
    return result;
  } catch (error) {
    q.rows.clear();
    q.bytes = 0;
    throw error;
  } finally {
    q.grouped = false;
  }
}
