import type { Redaction } from "../projection/index.js";
import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { flushFts } from "./fts-queue.js";

/** Rows read per transaction by the sweep (each table in turn), between yields. */
export const KEPT_SWEEP_ROWS = 2000;

interface SweptTable {
  /** Rows after a rowid, in rowid order, with their texts (nullable columns come back null). */
  select: string;
  update: string;
  columns: readonly string[];
}

const TABLES: readonly SweptTable[] = [
  {
    select: "SELECT id, title, body FROM recall_documents WHERE id > ? ORDER BY id LIMIT ?",
    update: "UPDATE recall_documents SET title = ?, body = ? WHERE id = ?",
    columns: ["title", "body"],
  },
  {
    select: "SELECT id, text FROM recall_records WHERE id > ? ORDER BY id LIMIT ?",
    update: "UPDATE recall_records SET text = ? WHERE id = ?",
    columns: ["text"],
  },
  {
    select: "SELECT rowid AS id, title FROM recall_conversations WHERE rowid > ? ORDER BY rowid LIMIT ?",
    update: "UPDATE recall_conversations SET title = ? WHERE rowid = ?",
    columns: ["title"],
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
    // The update trigger rewrites a document's FTS row, which must exist by then.
    flushFts(db);
    let rewritten = 0;
    for (const row of rows) {
      const before = table.columns.map((c) => row[c] as string | null);
      const redacted = before.map((text) => (text === null ? null : redaction.redact(text)));
      if (redacted.some((text, i) => text !== before[i])) {
        statement(db, table.update).run(...redacted, row.id);
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
