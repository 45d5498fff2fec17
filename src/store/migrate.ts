import Database from "better-sqlite3";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import type { Db } from "./open.js";
import { makePrivateDbFile } from "./private-files.js";
import { steppedBackup, type BackupSteps } from "./stepped-backup.js";
import { hasTable } from "./statements.js";

/** One schema step. `up` runs inside a transaction together with recording its version. */
export interface Migration<C = void> {
  version: number;
  name: string;
  /**
   * Runs with foreign keys off (SQLite's way to rebuild a table that others reference: dropping
   * it with them on would first delete every referencing row), checked before its commit.
   */
  foreignKeysOff?: boolean;
  up(db: Db, context: C): void;
}

export interface MigrateOptions<C> {
  db: Db;
  /** The database file, for naming the backup; null for in-memory databases (no backup possible). */
  file: string | null;
  migrations: readonly Migration<C>[];
  context: C;
  /** Where backups of an existing database go. */
  backupDir: string;
  /**
   * The folder is this file's alone (RECALL_HOME/backups holds history.db's only): after a
   * migration this process applied, backups of older schema versions there are removed. A
   * host's folder may hold another database's of the same name, so it is left as it is.
   */
  removeOlderBackups?: boolean;
  /** Table recording applied versions; recall's tables are prefixed so they never collide with a host's. */
  versionTable?: string;
  clock?: () => number;
}

export interface MigrateResult {
  from: number;
  to: number;
  /** Path of the verified backup taken before changing an existing database, or null. */
  backup: string | null;
}

const DEFAULT_VERSION_TABLE = "recall_migrations";

/** Highest applied version, 0 when the version table does not exist yet. */
export function currentVersion(db: Db, versionTable = DEFAULT_VERSION_TABLE): number {
  if (!hasTable(db, versionTable)) return 0;
  const row = db.prepare(`SELECT max(version) AS v FROM "${versionTable}"`).get() as { v: number | null };
  return row.v ?? 0;
}

function hasAnyTable(db: Db): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1")
      .get() !== undefined
  );
}

/**
 * Takes an online backup through SQLite's backup API and proves it is usable: it opens,
 * passes quick_check and holds the same tables as the original. With `steps`, every step is
 * bounded (store/stepped-backup.ts: a host's thread keeps its turns during a large backup).
 */
export async function backupDatabase(db: Db, target: string, steps?: BackupSteps): Promise<void> {
  if (steps) return steppedBackup(db, target, steps);
  makePrivateDbFile(target);
  await db.backup(target);
  const copy = new Database(target, { readonly: true, fileMustExist: true });
  try {
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok")
      throw new RecallError("Internal", `backup ${target} failed its integrity check: ${String(check)}`);
    const names = (d: Db) =>
      (
        d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
          name: string;
        }[]
      )
        .map((r) => r.name)
        .join(",");
    if (names(copy) !== names(db))
      throw new RecallError("Internal", `backup ${target} does not hold the same tables`);
  } finally {
    copy.close();
  }
}

/**
 * Brings a database to the newest schema: ordered versioned steps, each in its own
 * transaction with its version record. An existing database is backed up (and the backup
 * verified) before the first change; a database newer than this code is refused.
 */
export async function migrate<C>(options: MigrateOptions<C>): Promise<MigrateResult> {
  const { db, migrations, context } = options;
  const table = options.versionTable ?? DEFAULT_VERSION_TABLE;
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const latest = ordered.at(-1)?.version ?? 0;
  const from = currentVersion(db, table);
  if (from > latest) {
    throw new RecallError(
      "SchemaTooNew",
      `${options.file ?? "database"} has schema version ${from}, but this recall understands only up to ${latest}; upgrade recall`,
    );
  }
  const pending = ordered.filter((m) => m.version > from);
  if (pending.length === 0) return { from, to: from, backup: null };

  let backup: string | null = null;
  if (options.file && options.file !== ":memory:" && hasAnyTable(db)) {
    const stamp = backupStamp((options.clock ?? Date.now)());
    backup = path.join(options.backupDir, `${path.basename(options.file)}.v${from}.${stamp}.bak`);
    try {
      await backupDatabase(db, backup);
    } catch (error) {
      // Another process migrating the same file meanwhile (two `recall mcp` started together on
      // a new index) changes its tables under the copy: that process took its own backup, so this
      // one goes and the migration starts again from the version the file has now.
      if (currentVersion(db, table) === from) throw error;
      rmSync(backup, { force: true });
      return migrate(options);
    }
  }

  db.exec(
    `CREATE TABLE IF NOT EXISTS "${table}" (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`,
  );
  const record = db.prepare(`INSERT INTO "${table}" (version, name, applied_at) VALUES (?, ?, ?)`);
  // A step may rebuild a large table: another process opening meanwhile waits it out.
  const busyTimeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.max(busyTimeout, MIGRATION_WAIT_MS)}`);
  let applied = 0;
  try {
    for (const step of pending)
      if (applyStep(db, step, context, table, record, options.clock ?? Date.now)) applied += 1;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
  if (backup && applied > 0 && options.removeOlderBackups) removeOlderBackups(backup, from);
  return { from, to: latest, backup };
}

/**
 * Once this process's migration has succeeded, the backups earlier migrations took of the same
 * file (of an older schema version) go: each is a whole copy (2.4 GB and more at 1M messages), and
 * the newest is the one worth going back to. Another process migrating at the same time backed up
 * the same version, so its backup stays. Best effort: a backup that cannot be removed stays too.
 */
function removeOlderBackups(kept: string, version: number): void {
  const dir = path.dirname(kept);
  const name = path.basename(kept);
  const base = name.slice(0, name.lastIndexOf(".v"));
  try {
    for (const entry of readdirSync(dir)) {
      if (!entry.startsWith(`${base}.v`)) continue;
      const older = BACKUP_NAME.exec(entry.slice(base.length));
      if (older && Number(older[1]) < version) rmSync(path.join(dir, entry), { force: true });
    }
  } catch {
    // A folder that cannot be listed, or a file in use: what is left stays; the migration stands.
  }
}

/** What follows the file's name in a backup's (and its WAL files'): `.v<version>.<stamp>.bak` (backupStamp). */
const BACKUP_NAME = /^\.v(\d+)\.[0-9TZ-]+\.bak(?:-wal|-shm)?$/;

/** How long a process waits for another one's migration step (a table rebuild at 1M documents: about 10 s). */
const MIGRATION_WAIT_MS = 10 * 60_000;

/** One step in its own transaction, with its version record; false when another process applied it first. */
function applyStep<C>(
  db: Db,
  step: Migration<C>,
  context: C,
  table: string,
  record: Database.Statement,
  clock: () => number,
): boolean {
  // Only outside a transaction does the setting take effect.
  const foreignKeys = db.pragma("foreign_keys", { simple: true }) as number;
  if (step.foreignKeysOff) db.pragma("foreign_keys = OFF");
  try {
    // IMMEDIATE takes the write lock up front; re-checking inside it makes two processes
    // migrating at once apply each step exactly once.
    return db
      .transaction((): boolean => {
        if (currentVersion(db, table) >= step.version) return false;
        step.up(db, context);
        if (step.foreignKeysOff && (db.pragma("foreign_key_check") as unknown[]).length > 0)
          throw new RecallError("Internal", `migration ${step.version} (${step.name}) broke a foreign key`);
        record.run(step.version, step.name, clock());
        return true;
      })
      .immediate();
  } finally {
    if (step.foreignKeysOff) db.pragma(`foreign_keys = ${foreignKeys ? "ON" : "OFF"}`);
  }
}

/** A backup file name's time part: an ISO time without the characters some filesystems refuse. */
export function backupStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}
