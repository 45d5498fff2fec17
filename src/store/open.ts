import Database from "better-sqlite3";
import path from "node:path";
import { makeDirs } from "../platform/make-dirs.js";
import { pauseSync } from "../core/clock.js";

export type Db = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** Milliseconds a statement waits for a lock held by another process. */
  busyTimeoutMs?: number;
  /** Page size of a database this call creates; an existing one keeps its own. */
  pageSize?: number;
  /**
   * Leave the journal mode as the file has it (default: switch to WAL). A host app's database
   * is the host's to configure: the mode persists in the file.
   */
  keepJournalMode?: boolean;
  /**
   * Page cache bound in KiB (better-sqlite3's default is 16,000 per connection). A connection
   * that reads along a key, never the same page twice, gains nothing from more than a little.
   */
  cacheKib?: number;
}

/** The page cache of a connection that reads along keys: sources, the indexing thread's view. */
export const STREAMING_CACHE_KIB = 2048;

/**
 * Opens a database recall owns: WAL so readers never block the one writer,
 * a busy timeout so brief lock contention is waited out, foreign keys enforced.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (!options.readonly && file !== ":memory:") makeDirs(path.dirname(file));
  const db = new Database(file, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
  });
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  if (options.cacheKib !== undefined) db.pragma(`cache_size = -${options.cacheKib}`);
  if (!options.readonly) {
    // Only before the first page is written, and before WAL (which fixes the page size).
    if (options.pageSize && db.pragma("page_count", { simple: true }) === 0)
      db.pragma(`page_size = ${options.pageSize}`);
    if (!options.keepJournalMode) enableWal(db, options.busyTimeoutMs ?? 5000);
    db.pragma("synchronous = NORMAL");
  }
  db.pragma("foreign_keys = ON");
  return db;
}

/**
 * Switches a new database to WAL. Two processes creating the same database at once (two
 * `recall mcp` started together) can get SQLITE_BUSY here without SQLite's busy handler being
 * called, so the switch is retried for as long as the busy timeout.
 */
function enableWal(db: Db, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      pauseSync(20);
    }
  }
}

/**
 * Opens someone else's database (a CLI's or an app's) strictly read-only: no content change,
 * no WAL checkpoint. SQLite may create the -shm file beside a WAL database; that is the one
 * accepted side effect. Sources page through it by key, so its page cache stays small: at the
 * default, the indexing thread's connections held 32 MB of a backfill's peak memory.
 */
export function openSourceDatabase(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 2000");
  db.pragma(`cache_size = -${STREAMING_CACHE_KIB}`);
  return db;
}
