import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Db } from "./open.js";
import { hasTable } from "./statements.js";

/**
 * Erasing what was deleted from a database recall owns, from its files and not only its tables
 * (`recall forget`). Deleting rows is not enough, even with SQLite's secure_delete:
 * - FTS5 keeps a deleted document's terms in its segments until they are merged;
 * - a b-tree page rebuilt when rows move between pages (SQLite's rebuildPage) keeps stale copies
 *   of the cells it moved in its unallocated space, secure_delete or not, so text deleted later
 *   from the page it moved to survives in the page it came from;
 * - pages freed while secure_delete was off (every delete and update before the forget) keep
 *   their old content on the freelist;
 * - the WAL keeps earlier versions of every page until it is checkpointed and truncated.
 * So the FTS5 index is merged into one segment, then VACUUM writes every live row into fresh
 * pages (its temporary copy goes to a file, not memory: a whole index), then the WAL is
 * checkpointed and truncated.
 */
export interface EraseResult {
  /** The WAL was checkpointed and truncated; false while another process kept an older snapshot. */
  walTruncated: boolean;
  /**
   * Why the rewrite into fresh pages failed (SQLITE_FULL: VACUUM needs about twice the index's
   * size free in WAL mode), or undefined when it ran. The rows are deleted either way.
   */
  vacuumFailed?: string;
}

/** How long to wait for readers holding an older snapshot before the WAL can be truncated. */
const TRUNCATE_ATTEMPTS = 50;
const TRUNCATE_PAUSE_MS = 100;

export function eraseDeleted(db: Db): EraseResult {
  if (hasTable(db, "recall_fts")) db.prepare("INSERT INTO recall_fts (recall_fts) VALUES ('optimize')").run();
  return rewriteIntoFreshPages(db);
}

/**
 * VACUUM, its temporary copy in a file, then the WAL checkpointed and truncated: every live row in
 * fresh pages, and the file no larger than they are.
 */
export function rewriteIntoFreshPages(db: Db): EraseResult {
  const tempStore = db.pragma("temp_store", { simple: true }) as number;
  // temp_store = MEMORY (history-store.ts's writer setting) would hold the whole copy in memory.
  if (tempStore === 2) db.pragma("temp_store = FILE");
  let vacuumFailed: string | undefined;
  try {
    db.exec("VACUUM");
  } catch (error) {
    // The deletion is committed already: say the erase fell short rather than fail the forget,
    // and still truncate the WAL (a failed VACUUM leaves it grown).
    vacuumFailed = (error as Error).message.split("\n")[0];
  } finally {
    if (tempStore === 2) db.pragma("temp_store = MEMORY");
  }
  const walTruncated = truncateWal(db);
  return vacuumFailed === undefined ? { walTruncated } : { walTruncated, vacuumFailed };
}

/**
 * Checkpoints the WAL and truncates it to nothing. A reader in the middle of a query holds an
 * older snapshot, which keeps the frames it may still read: waited out for a few seconds.
 */
export function truncateWal(db: Db): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  // The checkpoint waits for readers through the busy handler: at the connection's own timeout
  // (5 s) the attempts would block a broker for minutes instead of seconds.
  const busy = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma(`busy_timeout = ${TRUNCATE_PAUSE_MS}`);
  try {
    for (let attempt = 0; attempt < TRUNCATE_ATTEMPTS; attempt++) {
      const [row] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number }[];
      if (!row || (row.busy === 0 && row.log <= 0)) return true;
      Atomics.wait(pause, 0, 0, TRUNCATE_PAUSE_MS);
    }
    return false;
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
}

/**
 * Removes every copy of a database in its backups folder (migration backups, a first load set
 * aside): each is a whole earlier copy, holding what was since deleted. Returns how many files
 * went; one that cannot be removed is left (and not counted).
 */
export function removeBackups(dbFile: string): number {
  const dir = path.join(path.dirname(dbFile), "backups");
  const prefix = `${path.basename(dbFile)}.`;
  let removed = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0; // no backups folder
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    try {
      rmSync(path.join(dir, entry), { force: true });
      removed += 1;
    } catch {
      // in use or not ours to remove: it stays
    }
  }
  return removed;
}
