import { searchTextFromRead } from "../projection/index.js";

/**
 * A document's searched text is stored once (schema v10): in its own `body`, or — `body` ''
 * — as its record's read text, from which projection/search-text.ts gives it. Readers read the
 * record only for such documents; `d` is the documents table's alias in their query. A subquery,
 * not a LEFT JOIN: the records view is a join (schema v14), which SQLite cannot flatten into the
 * right side of a LEFT JOIN, while in a subquery it is two primary-key probes.
 */
export const RECORD_TEXT_COLUMN =
  "CASE WHEN d.body = '' THEN (SELECT rt.text FROM recall_records rt WHERE rt.id = d.record) END AS recordText";

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

/** What a writer stores as a document's body: '' when its record's read text gives `search`. */
export function storedBody(search: string, read: string): string {
  return search !== "" && searchTextFromRead(read) === search ? "" : search;
}
