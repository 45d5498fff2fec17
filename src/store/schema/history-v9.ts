import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * A transcript file found shrunk or rewritten no longer takes its history with it: each record
 * remembers the version of its file it was read from (`epoch`, as raw chunks do), so a rewritten
 * file's new lines are kept beside, not over, the records of the version before (indexer/
 * ingest.ts). Per source, the files found shrunk or rewritten and the files or folders that
 * could not be read are counted for `recall status`. Columns added with a constant default cost
 * no table rewrite.
 */
export const historyV9: Migration<HistorySchemaContext> = {
  version: 9,
  name: "record file versions, rewritten and unreadable counts",
  up(db) {
    db.exec(`
      ALTER TABLE recall_records ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE recall_source_stats ADD COLUMN rewritten INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE recall_source_stats ADD COLUMN unreadable INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
