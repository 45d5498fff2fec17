import { RecallError } from "../../core/errors.js";
import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/** The records' ordinal key, as a named index a first backfill can defer (store/read-indexes.ts). */
const ORDINAL_INDEX_SQL =
  "CREATE UNIQUE INDEX recall_records_ordinal ON recall_records (conversation, ordinal)";

/**
 * Records keep one row per (conversation, ordinal), now through a named unique index instead
 * of the table's inline UNIQUE constraint, which SQLite cannot drop. No write looks a record up
 * by ordinal (ordinals come from recall_conversations.next_ordinal) and reads page by time, so a
 * first backfill builds it once at its end. Measured at 1M messages: the backfill writes 8.1 GB
 * instead of 9.2 GB, and the store's writes replayed alone take 20.7–21.1 s against 22.9–26.4 s
 * with the index kept row by row. As in v5, the table is rebuilt: ids are copied as they are,
 * and its indexes are created again verbatim.
 */
export const historyV6: Migration<HistorySchemaContext> = {
  version: 6,
  name: "records ordinal key as a named unique index",
  up(db) {
    const table = (
      db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'recall_records'").get() as {
        sql: string;
      }
    ).sql;
    const rebuilt = table
      .replace(/,\s*UNIQUE \(conversation, ordinal\),/, ",")
      .replace(/^CREATE TABLE recall_records \(/, "CREATE TABLE recall_records_v6 (");
    if (
      rebuilt === table ||
      !rebuilt.startsWith("CREATE TABLE recall_records_v6 (") ||
      rebuilt.includes("ordinal),")
    )
      throw new RecallError("Internal", "recall_records is not the table this migration expects");
    const dependents = (
      db
        .prepare(
          `SELECT sql FROM sqlite_master WHERE tbl_name = 'recall_records' AND type IN ('index', 'trigger')
             AND sql IS NOT NULL ORDER BY type, name`,
        )
        .all() as { sql: string }[]
    ).map((r) => r.sql);
    db.exec(rebuilt);
    db.exec("INSERT INTO recall_records_v6 SELECT * FROM recall_records");
    db.exec("DROP TABLE recall_records");
    db.exec("ALTER TABLE recall_records_v6 RENAME TO recall_records");
    for (const sql of dependents) db.exec(sql);
    db.exec(ORDINAL_INDEX_SQL);
  },
};
