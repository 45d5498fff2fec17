import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/** The records' ordinal key, as a named index a first backfill can defer (store/read-indexes.ts). */
const ORDINAL_INDEX_SQL =
  "CREATE UNIQUE INDEX recall_records_ordinal ON recall_records (conversation, ordinal)";

/**
 * Records keep one row per (conversation, ordinal), now through a named unique index instead
 * of the table's inline UNIQUE constraint, which SQLite cannot drop. No write looks a record up
 * by ordinal (ordinals come from recall_conversations.next_ordinal) and reads page by time, so a
 * first backfill builds it once at its end. Measured at 1M messages: the backfill writes 8.1 GB
 * instead of 9.2 GB, and the store's writes replayed alone take 20.7–21.1 s against 22.9–26.4 s
 * with the index kept row by row. As in v5, the table is rebuilt (rebuild-table.ts).
 */
export const historyV6: Migration<HistorySchemaContext> = {
  version: 6,
  name: "records ordinal key as a named unique index",
  up(db) {
    rebuildTable(db, "recall_records", (sql) => sql.replace(/,\s*UNIQUE \(conversation, ordinal\),/, ","));
    db.exec(ORDINAL_INDEX_SQL);
  },
};
