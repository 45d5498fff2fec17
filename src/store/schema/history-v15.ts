import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/**
 * Term lists in a rowid table (issue #32's lean store). A list row is two blobs of up to 16 KiB:
 * in a WITHOUT ROWID table SQLite keeps at most about 4 KiB of a row on its leaf and spills the
 * rest to overflow pages whose last one is mostly empty (22 of 77 MiB unused at 1M Zipf
 * messages). A rowid table sizes a row's leaf part so its overflow pages are full: 61 MiB, 7
 * unused. A lookup by term is one more probe (the term's own index), one per query term.
 */
export const historyV15: Migration<HistorySchemaContext> = {
  version: 15,
  name: "term lists in a rowid table",
  up(db) {
    rebuildTable(db, "recall_term_lists", (sql) => sql.replace(/\)\s*WITHOUT ROWID\s*$/, ")"));
  },
};
