import type { Migration } from "../store/migrate.js";
import { BOUNDED_MERGE_POLICY_SQL } from "../store/fts-merge.js";
import { historyV1, type HistorySchemaContext } from "../store/schema/history-v1.js";

/**
 * Installed into a host's Dyad-shaped database (apps, chats, messages). Step 1 is the same
 * unified index schema recall uses everywhere; step 2 adds what only an embedded index
 * needs: dirty queues filled by triggers on the host's tables (SQLite cannot run the
 * TypeScript projection, so triggers only record what changed), an index on
 * messages(chat_id) that Dyad lacks, and every existing message marked for backfill.
 */
const chatQueues: Migration<HistorySchemaContext> = {
  version: 2,
  name: "chat dirty queues and triggers",
  up(db) {
    db.exec(`
      CREATE TABLE recall_dirty_messages (message_id INTEGER PRIMARY KEY);
      CREATE TABLE recall_dirty_chats (chat_id INTEGER PRIMARY KEY);
      CREATE INDEX IF NOT EXISTS recall_messages_chat ON messages (chat_id, created_at, id);

      CREATE TRIGGER recall_messages_insert AFTER INSERT ON messages BEGIN
        INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (new.id);
      END;
      CREATE TRIGGER recall_messages_update AFTER UPDATE OF content, role, is_compaction_summary, chat_id ON messages BEGIN
        INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (new.id);
      END;
      CREATE TRIGGER recall_messages_delete AFTER DELETE ON messages BEGIN
        DELETE FROM recall_documents WHERE id = old.id;
        DELETE FROM recall_dirty_messages WHERE message_id = old.id;
      END;
      CREATE TRIGGER recall_chats_title AFTER UPDATE OF title ON chats BEGIN
        INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
      END;
      CREATE TRIGGER recall_chats_delete AFTER DELETE ON chats BEGIN
        DELETE FROM recall_documents WHERE chat_id = old.id;
        DELETE FROM recall_dirty_chats WHERE chat_id = old.id;
      END;

      INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages;
    `);
  },
};

/**
 * The host's event loop must not wait on FTS5 merges inside a batch: the indexer service merges
 * in separate bounded steps instead (store/fts-merge.ts).
 */
const boundedMerges: Migration<HistorySchemaContext> = {
  version: 3,
  name: "FTS5 merges in bounded steps",
  up(db) {
    db.exec(BOUNDED_MERGE_POLICY_SQL);
  },
};

export const EMBEDDED_MIGRATIONS: readonly Migration<HistorySchemaContext>[] = [
  historyV1,
  chatQueues,
  boundedMerges,
];
