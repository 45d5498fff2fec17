import { EMBEDDED_CHAT_SOURCE } from "../core/kinds.js";
import type { Migration } from "./migrate.js";
import type { Db } from "./open.js";
import { BOUNDED_MERGE_POLICY_SQL, EMBEDDED_USERMERGE_SQL } from "./fts-merge.js";
import { historyV1, type HistorySchemaContext } from "./schema/history-v1.js";
import { hasTable } from "./statements.js";
import { deriveHitIds } from "./schema/history-v13.js";

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
    // A chat moved to another app: its documents carry the app they are searched under, so
    // they move in the host's own transaction (no drain may find them under the old app);
    // the drain re-projects the rest.
    type: "trigger",
    name: "recall_chats_app",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_chats_app AFTER UPDATE OF app_id ON chats BEGIN
      UPDATE recall_documents SET app_id = new.app_id WHERE chat_id = new.id AND app_id IS NOT new.app_id;
      INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
    END`,
  },
  {
    // A message moved to another chat: the same, for its one document (its id is the message's).
    type: "trigger",
    name: "recall_messages_moved",
    sql: `CREATE TRIGGER IF NOT EXISTS recall_messages_moved AFTER UPDATE OF chat_id ON messages BEGIN
      UPDATE recall_documents SET chat_id = new.chat_id,
        app_id = (SELECT app_id FROM chats WHERE id = new.chat_id) WHERE id = new.id;
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

/**
 * Documents whose chat or app is not their message's now (moved while no trigger saw it) are
 * put where the message is; the drain the queues start re-projects the rest.
 */
const REALIGN_DOCUMENTS = `UPDATE recall_documents SET chat_id = m.chat_id, app_id = c.app_id
  FROM messages m LEFT JOIN chats c ON c.id = m.chat_id
  WHERE m.id = recall_documents.id AND recall_documents.source = '${EMBEDDED_CHAT_SOURCE}'
    AND (recall_documents.chat_id IS NOT m.chat_id OR recall_documents.app_id IS NOT c.app_id)`;

/**
 * Step 5: a move takes effect in the host's own transaction. Step 4 only queued the chat, and
 * its old app still found it until the next drain. The two triggers are replaced (step 4 now
 * creates the new one on a fresh database; dropping it first makes this step the same for both).
 */
const movesAtOnce: Migration<HistorySchemaContext> = {
  version: 5,
  name: "moves leave the old app at once",
  up(db) {
    db.exec("DROP TRIGGER IF EXISTS recall_chats_app");
    for (const name of ["recall_chats_app", "recall_messages_moved"])
      db.exec(HOST_HOOKS.find((h) => h.name === name)!.sql);
    db.exec(REALIGN_DOCUMENTS);
  },
};

/**
 * Documents name their record (history.db's schema v10), which search reads through when a body is
 * '' (store/document-text.ts). An embedded index keeps every message's body and its
 * external-content FTS5 table, so the column stays empty here; it exists so one query serves both.
 */
const documentRecords: Migration<HistorySchemaContext> = {
  version: 6,
  name: "documents name their record",
  up(db) {
    db.exec("ALTER TABLE recall_documents ADD COLUMN record INTEGER");
  },
};

/**
 * Hit ids derived, not stored: history.db's step 13 (schema/history-v13.ts), for one shape of both.
 * A host whose legacy tables were dropped (`--drop-legacy`) keeps only its queues: this step and
 * those added since find nothing to change there.
 */
const derivedHitIds: Migration<HistorySchemaContext> = {
  version: 7,
  name: "hit ids derived, not stored",
  foreignKeysOff: true,
  up(db) {
    if (hasTable(db, "recall_documents")) deriveHitIds(db);
  },
};

/** The embedded indexer's merge steps gather more segments a level (store/fts-merge.ts). */
const widerMerges: Migration<HistorySchemaContext> = {
  version: 8,
  name: "FTS5 merges 16 segments a level",
  up(db) {
    if (hasTable(db, "recall_fts")) db.exec(EMBEDDED_USERMERGE_SQL);
  },
};

export const EMBEDDED_MIGRATIONS: readonly Migration<HistorySchemaContext>[] = [
  historyV1,
  chatQueues,
  boundedMerges,
  movedChats,
  movesAtOnce,
  documentRecords,
  derivedHitIds,
  widerMerges,
];

/**
 * Re-creates recall's triggers and index on the host's tables where they are missing, and then
 * queues every message and every moved chat again (what changed while they were gone is
 * unknown). Returns the names re-created. After --drop-legacy, the queue-only hooks (the
 * documents are in history.db, which no trigger of the host's can reach).
 */
export function repairHostHooks(db: Db): string[] {
  const present = new Set(
    (
      db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')").all() as {
        name: string;
      }[]
    ).map((r) => r.name),
  );
  const dropped = legacyDropped(db);
  const missing = hostHooks(dropped).filter((h) => !present.has(h.name));
  if (missing.length === 0) return [];
  db.transaction(() => {
    for (const hook of missing) db.exec(hook.sql);
    db.exec("INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages");
    if (dropped) return;
    db.exec(MOVED_CHATS);
    db.exec(REALIGN_DOCUMENTS);
  }).immediate();
  return missing.map((h) => h.name);
}

/** The host's mark that --drop-legacy removed recall's legacy tables: where history.db is, when, the backup. */
export const LEGACY_DROPPED = "recall_legacy_dropped";

/**
 * recall's tables a host keeps after --drop-legacy: the version record (attach's migration
 * finds the index current), the dirty queues its triggers fill (a trigger writes only its own
 * database; the indexer drains them into history.db) and the mark.
 */
export const DIRTY_QUEUES: readonly string[] = ["recall_dirty_messages", "recall_dirty_chats"];
export const KEPT_AFTER_DROP: readonly string[] = ["recall_migrations", ...DIRTY_QUEUES, LEGACY_DROPPED];

/**
 * The hooks that wrote recall_documents in the host's own transaction, as they are once the
 * documents live only in history.db: each queues what it touched, and the next drain removes or
 * re-projects it (a message gone, or in a chat gone, is removed; a move is re-projected).
 */
const QUEUE_ONLY_HOOKS: Record<string, string> = {
  recall_messages_delete: `CREATE TRIGGER IF NOT EXISTS recall_messages_delete AFTER DELETE ON messages BEGIN
      INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (old.id);
    END`,
  recall_chats_app: `CREATE TRIGGER IF NOT EXISTS recall_chats_app AFTER UPDATE OF app_id ON chats BEGIN
      INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
    END`,
  recall_messages_moved: `CREATE TRIGGER IF NOT EXISTS recall_messages_moved AFTER UPDATE OF chat_id ON messages BEGIN
      INSERT OR IGNORE INTO recall_dirty_messages (message_id) VALUES (new.id);
    END`,
  recall_chats_delete: `CREATE TRIGGER IF NOT EXISTS recall_chats_delete AFTER DELETE ON chats BEGIN
      INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages WHERE chat_id = old.id;
      DELETE FROM recall_dirty_chats WHERE chat_id = old.id;
    END`,
};

function hostHooks(dropped: boolean): readonly { name: string; sql: string }[] {
  return HOST_HOOKS.map((h) =>
    dropped && QUEUE_ONLY_HOOKS[h.name] ? { ...h, sql: QUEUE_ONLY_HOOKS[h.name]! } : h,
  );
}

export function legacyDropped(db: Db): boolean {
  return hasTable(db, LEGACY_DROPPED);
}

/** history.db's path as the mark records it, or null when the legacy tables are there. */
export function droppedTo(db: Db): string | null {
  if (!legacyDropped(db)) return null;
  const row = db.prepare(`SELECT value FROM ${LEGACY_DROPPED} WHERE key = 'history'`).get() as
    { value: string } | undefined;
  return row?.value ?? null;
}

/**
 * --drop-legacy's switch on the host, in the caller's write transaction: the hooks that wrote
 * recall_documents queue instead, and the mark records where the documents are now.
 */
export function markLegacyDropped(db: Db, mark: { history: string; at: string; backup: string }): void {
  for (const name of Object.keys(QUEUE_ONLY_HOOKS)) {
    db.exec(`DROP TRIGGER IF EXISTS "${name}"`);
    db.exec(QUEUE_ONLY_HOOKS[name]!);
  }
  db.exec(`CREATE TABLE IF NOT EXISTS ${LEGACY_DROPPED} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const set = db.prepare(`INSERT OR REPLACE INTO ${LEGACY_DROPPED} (key, value) VALUES (?, ?)`);
  for (const [key, value] of Object.entries(mark)) set.run(key, value);
}

/**
 * recall's legacy tables left in a dropped host (virtual tables first: FTS5's shadow tables go
 * with them), each removed by one DROP TABLE (dropLegacyTable).
 */
export function legacyLeft(db: Db): string[] {
  const rows = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'recall\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all() as { name: string; sql: string }[];
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name);
  const shadow = (name: string) => virtual.some((v) => name.startsWith(`${v}_`));
  return [
    ...virtual,
    ...rows
      .map((r) => r.name)
      .filter((n) => !virtual.includes(n) && !shadow(n) && !KEPT_AFTER_DROP.includes(n)),
  ];
}

export function dropLegacyTable(db: Db, name: string): void {
  db.transaction(() => db.exec(`DROP TABLE IF EXISTS "${name}"`)).immediate();
}
