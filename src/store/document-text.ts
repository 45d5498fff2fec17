import { searchTextFromRead } from "../projection/index.js";

/**
 * A document's searched text is stored once (schema v10): in its own `body`, or — `body` ''
 * — as its record's read text, from which projection/search-text.ts gives it. Readers join the
 * record only for such documents; `d` is the documents table's alias in their query.
 */
export const RECORD_TEXT_JOIN = "LEFT JOIN recall_records rt ON d.body = '' AND rt.id = d.record";
export const RECORD_TEXT_COLUMN = "rt.text AS recordText";

export interface StoredBody {
  body: string;
  recordText?: string | null;
}

/** The searched text of a row selected with RECORD_TEXT_JOIN and RECORD_TEXT_COLUMN. */
export function documentBody(row: StoredBody): string {
  return row.body === "" && typeof row.recordText === "string"
    ? searchTextFromRead(row.recordText)
    : row.body;
}

/** What a writer stores as a document's body: '' when its record's read text gives `search`. */
export function storedBody(search: string, read: string): string {
  return search !== "" && searchTextFromRead(read) === search ? "" : search;
}
