import type { Db } from "./open.js";
import { hasViewOnce, pluckedStatement, statement } from "./statements.js";

/**
 * Records are stored in recall_record_rows, which names each record's conversation by its
 * integer `ref` (schema v14); `recall_records` is the view readers read, with the conversation's
 * id. Writers write the rows and name a conversation by its id through this subquery (one probe
 * of the conversations' id index), so they keep taking ids as parameters.
 */
/** A conversation's ref, by its id: the statement's next positional parameter. */
export const CONVERSATION_REF = "(SELECT ref FROM recall_conversations WHERE id = ?)";

/** The same, by the named parameter `@name`. */
export const conversationRefOf = (name: string): string =>
  `(SELECT ref FROM recall_conversations WHERE id = @${name})`;

/**
 * Whether records' rows hold their documents (history.db from schema 16: `recall_documents` is a
 * view over recall_record_rows). Asked once per connection: a reader that saw the older layout
 * keeps reading through statements that stay right on the newer one.
 */
export function rowsHoldDocuments(db: Db): boolean {
  return hasViewOnce(db, "recall_documents");
}

/**
 * Deletes the documents `where` selects (over the documents' columns, with `params`) and says
 * how many: counted first, as SQLite counts no change a view's INSTEAD OF trigger makes (schema
 * 16: a document is its record's row, and taking it away clears the row's document).
 */
export function deleteDocuments(db: Db, where: string, ...params: unknown[]): number {
  const n = pluckedStatement(db, `SELECT count(*) FROM recall_documents WHERE ${where}`).get(
    ...params,
  ) as number;
  if (n > 0) statement(db, `DELETE FROM recall_documents WHERE ${where}`).run(...params);
  return n;
}
