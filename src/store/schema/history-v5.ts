import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/** The documents' one key, as a named index a first backfill can defer (store/read-indexes.ts). */
const DOCUMENT_KEY_INDEX_SQL =
  "CREATE UNIQUE INDEX recall_documents_key ON recall_documents (source, source_key)";

/**
 * Documents keep one row per (source, source key), now through a named unique index instead of
 * the table's inline UNIQUE constraint, which SQLite cannot drop. Its keys (Claude and Codex
 * record ids) are random, so each backfill group rewrote most of its pages; a first backfill
 * builds it once at its end instead (measured: 7 to 9 s of a 36 s store-only replay at 1M).
 * SQLite changes a table constraint only by rebuilding the table: ids (the FTS rowids) are
 * copied as they are, and the table's indexes and triggers are created again verbatim.
 */
export const historyV5: Migration<HistorySchemaContext> = {
  version: 5,
  name: "documents key as a named unique index",
  foreignKeysOff: true,
  up(db) {
    rebuildTable(db, "recall_documents", (sql) =>
      sql.replace(/,\s*UNIQUE \(source, source_key\)\s*\)$/, "\n      )"),
    );
    db.exec(DOCUMENT_KEY_INDEX_SQL);
  },
};
