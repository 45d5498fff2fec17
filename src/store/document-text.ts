import { searchTextFromRead } from "../projection/index.js";
import type { Db } from "./open.js";
import { rowsHoldDocuments } from "./record-rows.js";
import { hasTableOnce } from "./statements.js";

/**
 * A document's searched text is stored once (schema v10): in its own `body`, or — `body` ''
 * — as its record's read text, from which projection/search-text.ts gives it. Readers read the
 * record only for such documents; `d` is the documents table's alias in their query. A subquery,
 * not a LEFT JOIN: the records view is a join (schema v14), which SQLite cannot flatten into the
 * right side of a LEFT JOIN, while in a subquery it is two primary-key probes.
 */
export const RECORD_TEXT_COLUMN =
  "CASE WHEN d.body = '' THEN (SELECT rt.text FROM recall_records rt WHERE rt.id = d.record) END AS recordText";
const ROWS_TEXT_COLUMN =
  "CASE WHEN d.body = '' THEN (SELECT rt.text FROM recall_record_rows rt WHERE rt.id = d.record) END AS recordText";
/** Schema 16: the document is its record's row, which the view reads once. */
const OWN_ROW_TEXT_COLUMN = "CASE WHEN d.body = '' THEN d.record_text END AS recordText";

/**
 * RECORD_TEXT_COLUMN for the hot paths that read many rows' text: where the records' own table is
 * there (history.db from schema 14) it is read directly, one probe fewer per row than through
 * the view (the conversation's): 2–5 ms of a fresh process's first query scoring 1,200–1,800 rows
 * at 1M demo messages. Kept per connection either way: the view stays right on every schema,
 * including an index a writer migrates after this connection asked.
 */
export function recordTextColumn(db: Db): string {
  if (rowsHoldDocuments(db)) return OWN_ROW_TEXT_COLUMN;
  return hasTableOnce(db, "recall_record_rows") ? ROWS_TEXT_COLUMN : RECORD_TEXT_COLUMN;
}

export interface StoredBody {
  body: string;
  recordText?: string | null;
}

/** The searched text of a row selected with RECORD_TEXT_COLUMN. */
export function documentBody(row: StoredBody): string {
  return row.body === "" && typeof row.recordText === "string"
    ? searchTextFromRead(row.recordText)
    : row.body;
}

/**
 * What a writer stores as a document's body: '' when its record's read text gives `search`.
 * `derived`: the projection made `search` from `read` this way already (no second pass).
 */
export function storedBody(search: string, read: string, derived = false): string {
  return search !== "" && (derived || searchTextFromRead(read) === search) ? "" : search;
}
