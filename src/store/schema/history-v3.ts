import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * Term statistics kept across processes (store/term-stats.ts): a common term's document count
 * and impact list cost a full FTS5 pass to build, which every fresh process (`recall search`, a
 * new `recall mcp`) would otherwise pay on the term's first use. The broker writes them in idle
 * time; readers use them as they use knowledge carried across index growth.
 */
export const historyV3: Migration<HistorySchemaContext> = {
  version: 3,
  name: "persisted term statistics",
  up(db) {
    db.exec(`
      CREATE TABLE recall_term_stats (
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
