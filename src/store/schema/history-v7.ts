import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * search_history now ranks with its own column weights (search/weights.ts): impact lists persisted
 * before were built with search_chats' and would rank by the old weights. They are dropped; the
 * broker builds them again in idle time, and a search meanwhile builds what it needs.
 */
export const historyV7: Migration<HistorySchemaContext> = {
  version: 7,
  name: "term statistics for search_history's weights",
  up(db) {
    db.exec("DELETE FROM recall_term_stats");
  },
};
