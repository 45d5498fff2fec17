import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/**
 * Document rowids are never used twice (AUTOINCREMENT). Term statistics carried by a search
 * (search/term-cache.ts) and persisted by the broker hold impact lists of the rows up to the
 * highest rowid they saw, and score the rows above it as new. A plain INTEGER PRIMARY KEY gives
 * a new row the rowid of a newest row deleted just before (a superseded Claude record, a
 * forgotten session, a message deleted in a chat app): that row sat at or below the lists'
 * mark without being in them, and its best matches were missed. The table is rebuilt as in v5;
 * ids are copied as they are and the sequence starts at the highest.
 */
export const historyV8: Migration<HistorySchemaContext> = {
  version: 8,
  name: "document rowids never reused",
  foreignKeysOff: true,
  up(db) {
    rebuildTable(db, "recall_documents", (sql) =>
      sql.replace(/\bid INTEGER PRIMARY KEY,/, "id INTEGER PRIMARY KEY AUTOINCREMENT,"),
    );
  },
};
