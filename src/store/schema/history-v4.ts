import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * Raw chunks name their compression (indexer/raw-codec.ts): new chunks are brotli, which
 * costs half the CPU of deflate on a first backfill; the chunks already kept stay deflate.
 */
export const historyV4: Migration<HistorySchemaContext> = {
  version: 4,
  name: "raw chunk codec",
  up(db) {
    db.exec(`ALTER TABLE recall_raw_chunks ADD COLUMN codec TEXT NOT NULL DEFAULT 'deflate'`);
  },
};
