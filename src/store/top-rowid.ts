import type { Db } from "./open.js";
import { rowsHoldDocuments } from "./record-rows.js";
import { pluckedStatement } from "./statements.js";

/**
 * The highest document rowid now (0 when there is none): term statistics' mark (see
 * search/term-cache.ts), which rows above are new to.
 */
export function topRowid(db: Db): number {
  // Through the view (schema 16) max() would read every row: the rows table is read backwards.
  const sql = rowsHoldDocuments(db)
    ? "SELECT max(id) FROM recall_record_rows WHERE projection_version IS NOT NULL"
    : "SELECT max(id) FROM recall_documents";
  return (pluckedStatement(db, sql).get() as number | null) ?? 0;
}
