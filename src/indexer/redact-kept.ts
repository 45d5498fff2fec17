import { searchTextFromRead, type Redaction } from "../projection/index.js";
import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { documentBody, RECORD_TEXT_COLUMN, type StoredBody } from "../store/document-text.js";
import { flushFts, replaceFts } from "./fts-queue.js";

/** Rows read per transaction by the sweep (each table in turn), between yields. */
export const KEPT_SWEEP_ROWS = 2000;

interface SweptTable {
  /** Rows after a rowid, in rowid order, with their texts (nullable columns come back null). */
  select: string;
  /** Rewrites one row's texts, given as redacted, in `columns` order. */
  rewrite(db: Db, row: Record<string, unknown>, texts: (string | null)[]): void;
  /** A row's texts, in the order `rewrite` takes them. */
  texts(row: Record<string, unknown>): (string | null)[];
}

const TABLES: readonly SweptTable[] = [
  {
    // A body '' stands for its record's read text (store/document-text.ts): the searched text is
    // redacted as the FTS row holds it, and stored apart from then on.
    select: `SELECT d.id, d.title, d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d
      WHERE d.id > ? ORDER BY d.id LIMIT ?`,
    texts: (row) => [row.title as string, documentBody(row as unknown as StoredBody)],
    rewrite(db, row, [title, body]) {
      statement(db, "UPDATE recall_documents SET title = ?, body = ? WHERE id = ?").run(title, body, row.id);
      replaceFts(db, row.id as number, { title: title!, body: body! });
    },
  },
  {
    select:
      "SELECT id, conversation, record_key AS key, text FROM recall_records WHERE id > ? ORDER BY id LIMIT ?",
    texts: (row) => [row.text as string],
    rewrite(db, row, [text]) {
      // A document whose body stood for this text keeps what its FTS row holds. Its writer gave
      // it the record's conversation and key (indexer/ingest.ts): the conversation index finds it.
      statement(
        db,
        "UPDATE recall_documents SET body = ? WHERE conversation = ? AND source_key = ? AND record = ? AND body = ''",
      ).run(searchTextFromRead(row.text as string), row.conversation, row.key, row.id);
      statement(db, "UPDATE recall_record_rows SET text = ? WHERE id = ?").run(text, row.id);
    },
  },
  {
    select: "SELECT rowid AS id, title FROM recall_conversations WHERE rowid > ? ORDER BY rowid LIMIT ?",
    texts: (row) => [row.title as string | null],
    rewrite(db, row, [title]) {
      statement(db, "UPDATE recall_conversations SET title = ? WHERE rowid = ?").run(title, row.id);
    },
  },
];

/**
 * One chunk of a table: rewrites the rows whose text redaction changes. Returns the last rowid
 * read (null at the end) and how many rows it rewrote.
 */
function sweepChunk(
  db: Db,
  table: SweptTable,
  after: number,
  redaction: Redaction,
): { last: number | null; rewritten: number } {
  return db.transaction(() => {
    const rows = statement(db, table.select).all(after, KEPT_SWEEP_ROWS) as Record<string, unknown>[];
    if (rows.length === 0) return { last: null, rewritten: 0 };
    // A document's FTS row must exist before it is replaced.
    flushFts(db);
    let rewritten = 0;
    for (const row of rows) {
      const before = table.texts(row);
      const redacted = before.map((text) => (text === null ? null : redaction.redact(text)));
      if (redacted.some((text, i) => text !== before[i])) {
        table.rewrite(db, row, redacted);
        rewritten++;
      }
    }
    return { last: rows[rows.length - 1]!.id as number, rewritten };
  })();
}

/**
 * The end of a projection rebuild: texts it could not rewrite still hold what an earlier
 * redaction (or none) let through — documents and retained records of a transcript whose file
 * the CLI deleted and whose raw bytes retention pruned (kept, as retention promises), titles of
 * conversations no source names any more. Each text is redacted where it is, a bounded chunk per
 * transaction, yielding between chunks; rows the rebuild rewrote are already redacted and stay as
 * they are. Returns the rows rewritten.
 */
export async function redactKeptText(
  db: Db,
  redaction: Redaction,
  onChunk?: () => void,
  /** The process is closing: stop between chunks (the rebuild is then not noted as done). */
  shouldStop?: () => boolean,
): Promise<{ rewritten: number; complete: boolean }> {
  let rewritten = 0;
  if (!redaction.enabled) return { rewritten, complete: true };
  for (const table of TABLES) {
    let after: number | null = 0;
    while (after !== null) {
      if (shouldStop?.()) return { rewritten, complete: false };
      const chunk = sweepChunk(db, table, after, redaction);
      after = chunk.last;
      rewritten += chunk.rewritten;
      onChunk?.();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return { rewritten, complete: true };
}
