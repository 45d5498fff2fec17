import { RecallError } from "../core/errors.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { probeFts5 } from "../store/fts-probe.js";
import { migrate, type MigrateResult } from "../store/migrate.js";
import type { Db } from "../store/open.js";
import { hasTable } from "../store/statements.js";
import { registerFunctions } from "../store/history-store.js";
import type { ToolDefinition } from "../tools/definition.js";
import { createReadChatTool } from "../tools/read-chat.js";
import { createSearchChatsTool } from "../tools/search-chats.js";
import {
  createChatSearchIndexer,
  type ChatIndexerOptions,
  type ChatSearchIndexer,
} from "./embedded-indexer.js";
import { droppedTo, EMBEDDED_MIGRATIONS, repairHostHooks } from "../store/embedded-schema.js";
import { attachDropped } from "./attach-dropped.js";
import { createSplitRouting, type SplitAttachOptions } from "./split-routing.js";
import type { SplitReport } from "./history-split.js";
import { splitSwitches } from "./split-switches.js";

export interface AttachOptions {
  /** The host database file, for naming the pre-migration backup; null for in-memory. */
  file: string | null;
  /** Where the pre-migration backup goes (default: beside the database). */
  backupDir?: string;
  indexer?: ChatIndexerOptions;
  /** Injected for tests of the missing-FTS5 path. */
  probe?: () => boolean;
  /**
   * The history.db split (app/history-split.ts): readers follow a switched history.db, and one
   * not switched yet is split in the background (unless start is false or RECALL_SPLIT=off).
   * Needs `file`. Without this option everything stays in the host's database.
   */
  split?: SplitAttachOptions;
}

export interface ChatSearch {
  indexer: ChatSearchIndexer;
  tools: [ToolDefinition, ToolDefinition];
  migration: MigrateResult;
  /** With the split option: the background split's report, when one started. */
  split: Promise<SplitReport> | null;
  /** The database readers read now: the host's, or history.db (with the host's attached) after the switch. */
  readDb(): Db;
  /** Stops the indexer and closes the split's own connections (the host's stays open). */
  close(): Promise<void>;
}

/**
 * Embedded mode: installs recall's index, dirty queues and triggers into a host's
 * Dyad-shaped database (through the backed-up migration executor) and returns the indexer
 * service and the search_chats / read_chat tool definitions bound to that database.
 * Embedded chat search needs FTS5: without it this fails loudly, never silently degrading.
 */
export async function attachChatSearch(db: Db, options: AttachOptions): Promise<ChatSearch> {
  if (!(options.probe ?? probeFts5)()) {
    throw new RecallError(
      "Unavailable",
      "chat search needs SQLite FTS5, which this SQLite build does not provide",
    );
  }
  requireHostColumns(db);
  registerFunctions(db);
  const migration = await migrate({
    db,
    file: options.file,
    migrations: EMBEDDED_MIGRATIONS,
    context: { engine: "fts5", projectionVersion: PROJECTION_VERSION },
    backupDir: options.backupDir ?? (options.file ? `${options.file}.recall-backups` : "."),
  });
  repairHostHooks(db);
  const dropped = droppedTo(db);
  if (dropped !== null && options.file) return attachDropped(options.file, dropped, options, migration);
  if (options.split && !options.file)
    throw new RecallError("Validation", "the history.db split needs the host database's file");
  // The routing is made after the indexer it asks about, which calls back into it lazily.
  let routing: ReturnType<typeof createSplitRouting> | null = null;
  const indexer = createChatSearchIndexer(db, {
    ...options.indexer,
    paused: () => (routing ? routing.paused() : splitSwitches().indexingPaused),
    afterDrain: () => routing?.afterDrain() ?? Promise.resolve(),
  });
  const legacy = [createSearchChatsTool(db, indexer), createReadChatTool(db)] as ToolDefinition[];
  if (options.split && options.file) routing = createSplitRouting(db, options.file, options.split, indexer);
  return {
    indexer,
    tools: (routing ? routing.route(legacy) : legacy) as [ToolDefinition, ToolDefinition],
    migration,
    split: routing?.split ?? null,
    readDb: () => routing?.readDb() ?? db,
    async close() {
      await indexer.stop();
      await routing?.split?.catch(() => {});
      routing?.close();
    },
  };
}

/** The host's tables and columns recall reads and hooks (docs/sources/dyad.md, "Tables and columns recall reads"). */
const HOST_COLUMNS: Record<string, readonly string[]> = {
  apps: ["id"],
  chats: ["id", "app_id", "title", "created_at"],
  messages: ["id", "chat_id", "role", "content", "created_at", "is_compaction_summary"],
};

/**
 * Checked before anything is installed: a host without them would be migrated half-way and then
 * fail on every batch.
 */
function requireHostColumns(db: Db): void {
  for (const [table, columns] of Object.entries(HOST_COLUMNS)) {
    if (!hasTable(db, table)) {
      throw new RecallError("Validation", `the host database has no ${table} table; it is not Dyad-shaped`);
    }
    const present = new Set(
      (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name),
    );
    const missing = columns.filter((c) => !present.has(c));
    if (missing.length > 0) {
      throw new RecallError(
        "Validation",
        `the host database's ${table} table has no ${missing.join(", ")} column${missing.length > 1 ? "s" : ""}; recall needs Dyad's schema`,
      );
    }
  }
}
