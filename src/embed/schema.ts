import { EMBEDDED_CHAT_SOURCE } from "../core/kinds.js";
import type { Migration } from "../store/migrate.js";
import type { Db } from "../store/open.js";
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

/**
 * What recall keeps on the host's own tables, as it should be now: the dirty-queue triggers and
 * the messages(chat_id) index. A host migration that rebuilds a table (Drizzle's
 * `__new_messages`, then DROP and RENAME) drops them with it, and indexing would stop without a
 * word: attach re-creates what is missing (repairHostHooks).
 */
const HOST_HOOKS: readonly { type: "index" | "trigger"; name: string; sql: string }[] = [
  {
    type: "index",
    name: "recall_messages_chat",
    sql: "CREATE INDEX IF NOT EXISTS recall_messages_chat ON messages (chat_id, created_at, id)",
  },
  {
    type: "trigger",
    name: "recall_messages_insert",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_messages_insert AFTER INSERT ON messages BEGIN
      INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (new.id);
    END`,
  },
  {
    type: "trigger",
    name: "recall_messages_update",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_messages_update
      AFTER UPDATE OF content, role, is_compaction_summary, chat_id ON messages BEGIN
      INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (new.id);
    END`,
  },
  {
    type: "trigger",
    name: "recall_messages_delete",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_messages_delete AFTER DELETE ON messages BEGIN
      DELETE FROM recall_documents WHERE id = old.id;
      DELETE FROM recall_dirty_messages WHERE message_id = old.id;
    END`,
  },
  {
    type: "trigger",
    name: "recall_chats_title",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_chats_title AFTER UPDATE OF title ON chats BEGIN
      INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
    END`,
  },
  {
    // A chat moved to another app: its documents carry the app they are searched under.
    type: "trigger",
    name: "recall_chats_app",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_chats_app AFTER UPDATE OF app_id ON chats BEGIN
      INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
    END`,
  },
  {
    type: "trigger",
    name: "recall_chats_delete",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_chats_delete AFTER DELETE ON chats BEGIN
      DELETE FROM recall_documents WHERE chat_id = old.id;
      DELETE FROM recall_dirty_chats WHERE chat_id = old.id;
    END`,
  },
];

/** Chats whose documents name another app than the chat now has. */
const MOVED_CHATS = `INSERT OR IGNORE INTO recall_dirty_chats (chat_id)
  SELECT DISTINCT d.chat_id FROM recall_documents d JOIN chats c ON c.id = d.chat_id
  WHERE d.source = '${EMBEDDED_CHAT_SOURCE}' AND d.app_id IS NOT c.app_id`;

/** Step 4: chats moved between apps are re-indexed (the trigger, and those moved before it). */
const movedChats: Migration<HistorySchemaContext> = {
  version: 4,
  name: "chats moved to another app",
  up(db) {
    db.exec(HOST_HOOKS.find((h) => h.name === "recall_chats_app")!.sql);
    db.exec(MOVED_CHATS);
  },
};

export const EMBEDDED_MIGRATIONS: readonly Migration<HistorySchemaContext>[] = [
  historyV1,
  chatQueues,
  boundedMerges,
  movedChats,
];

/**
 * Re-creates recall's triggers and index on the host's tables where they are missing, and then
 * queues every message and every moved chat again (what changed while they were gone is
 * unknown). Returns the names re-created.
 */
export function repairHostHooks(db: Db): string[] {
  const present = new Set(
    (
      db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')").all() as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
  const missing = HOST_HOOKS.filter((h) => !present.has(h.name));
  if (missing.length === 0) return [];
  db.transaction(() => {
    for (const hook of missing) db.exec(hook.sql);
    db.exec("INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages");
    db.exec(MOVED_CHATS);
  }).immediate();
  return missing.map((h) => h.name);
}
