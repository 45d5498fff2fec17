import type { Db } from "./open.js";

/**
 * Runs `read` on one snapshot of the database (a deferred transaction: WAL readers never block
 * the writer). A search ranks rows, then reads the chosen rows' columns and snippets by rowid,
 * and may search again relaxed without the rows it already has: a write another connection
 * committed between those statements (a document rewritten under a new rowid, one deleted)
 * would otherwise drop a hit or return one twice.
 */
export function readSnapshot<T>(db: Db, read: () => T): T {
  return db.inTransaction ? read() : db.transaction(read)();
}
