import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * Common terms' impact lists in rowid order, ids as 32-bit integers and impacts as 32-bit floats
 * (store/term-stats.ts): half the bytes of the 64-bit lists in impact order, and ready to merge as
 * read, so no fresh process sorts a list before its first query. A new table, not new rows in the
 * old one: an older recall searching this index finds no table it would misread (it computes the
 * lists it needs). The old lists are dropped; the broker builds the new ones in idle time, and
 * `recall index` before it reports done.
 */
export const historyV12: Migration<HistorySchemaContext> = {
  version: 12,
  name: "term lists in rowid order, 32-bit",
  up(db) {
    db.exec(`
      DROP TABLE recall_term_stats;
      CREATE TABLE recall_term_lists (
        term TEXT PRIMARY KEY,
        df INTEGER NOT NULL,
        through INTEGER NOT NULL,
        built_rows INTEGER NOT NULL,
        idf REAL NOT NULL,
        avgdl REAL NOT NULL,
        complete INTEGER NOT NULL,
        ids BLOB NOT NULL,
        impacts BLOB NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
