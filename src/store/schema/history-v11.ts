import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/**
 * The dashboard's landing page without a scan of every conversation: top-level conversations in
 * the order they were last written, sessions started per day and agent, each project's
 * conversations per agent, and a conversation's sub-agents. Partial indexes (the landing page
 * lists top-level conversations only; only sub-agents have a parent); the day and project ones
 * end with `parent` so they cover their query (SQLite does not count the partial index's WHERE
 * as a column it holds).
 */
export const historyV11: Migration<HistorySchemaContext> = {
  version: 11,
  name: "conversation indexes for browsing",
  up(db) {
    db.exec(`
      CREATE INDEX recall_conversations_recent ON recall_conversations (updated_at) WHERE parent IS NULL;
      CREATE INDEX recall_conversations_started ON recall_conversations (started_at, agent, parent)
        WHERE parent IS NULL;
      CREATE INDEX recall_conversations_projects ON recall_conversations (project, agent, updated_at, parent)
        WHERE parent IS NULL;
      CREATE INDEX recall_conversations_parent ON recall_conversations (parent) WHERE parent IS NOT NULL;
    `);
  },
};
