import { lstatSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import { isFolder } from "../platform/real-path.js";
import { recoverFirstLoad } from "./first-load.js";
import { damagedIndexError } from "./damage.js";
import { rewriteIntoFreshPages } from "./erase.js";
import { chooseEngine, type Engine } from "./fts-probe.js";
import { foldText } from "./fold.js";
import { migrate, type MigrateResult } from "./migrate.js";
import { openDatabase, type Db } from "./open.js";
import { ensureReadIndexes } from "./read-indexes.js";
import { HISTORY_MIGRATIONS } from "./schema/history.js";
import { makePrivateDbFile, makeRecallHome } from "./private-files.js";
import { getMeta } from "./meta.js";
import { hasTable } from "./statements.js";

export interface HistoryStore {
  db: Db;
  file: string;
  engine: Engine;
  migration: MigrateResult | null;
  close(): void;
}

export interface OpenHistoryOptions {
  /** RECALL_HOME: history.db and its backups live here. */
  home: string;
  /** Force an engine for a NEW index (tests force plain); an existing index keeps its own. */
  engine?: Engine;
  /** Current projection policy version, recorded when the index is created. */
  projectionVersion: number;
  readonly?: boolean;
  probe?: () => boolean;
}

export const HISTORY_FILE = "history.db";

/**
 * A new index's page size. SQLite writes each page with its own system call, twice in WAL mode
 * (the log, then the checkpoint), and a first backfill writes gigabytes. At 16 KiB against the
 * default 4 KiB, measured: about 5 % less CPU for a 100k-message backfill, a median 26.8 s
 * against 28.0 s for the store's writes alone replayed at 1M (32 KiB: 28.6–30.8 s), and search
 * at 1M as fast (search_history p95 0.42 / 11.1 / 11.5 / 14.8 ms against 0.35 / 11.1 / 11.3 /
 * 13.8 ms for rare / identifier / mixed / common words).
 */
export const HISTORY_PAGE_SIZE = 16_384;

/** Registers SQL functions the schema's triggers call; every connection recall opens needs them. */
export function registerFunctions(db: Db): void {
  db.function("recall_fold", { deterministic: true }, (text: string | number | bigint | Buffer | null) =>
    foldText(text === null ? "" : String(text)),
  );
}

export function readMeta(db: Db, key: string): string | undefined {
  return hasTable(db, "recall_meta") ? getMeta(db, key) : undefined;
}

/**
 * Readies a writer connection to a current history.db (after its migrations): builds the read
 * indexes a first backfill stopped before its end left out (store/read-indexes.ts), and keeps
 * statement journals in memory (indexer/ingest.ts), set outside any transaction and after a
 * migration's sorts, which use temporary files.
 */
export function readyWriter(db: Db, options: { buildMissingIndexes: boolean }): void {
  if (options.buildMissingIndexes) ensureReadIndexes(db);
  db.pragma("temp_store = MEMORY");
}

/**
 * Opens (creating or migrating as needed) the standalone index at RECALL_HOME/history.db.
 * Readers open it read-only and never migrate: an index that does not exist yet is a
 * NotFound, never an empty result.
 */
export async function openHistoryStore(options: OpenHistoryOptions): Promise<HistoryStore> {
  const file = path.join(options.home, HISTORY_FILE);
  try {
    return await openAt(file, options);
  } catch (error) {
    throw openFailure(error, file, options.home) ?? error;
  }
}

/**
 * An index that cannot be opened, said so that a person can act on it: a damaged file, something
 * else in its place, or a RECALL_HOME (or its backups folder) that recall may not use. Anything
 * else is not rewritten.
 */
function openFailure(error: unknown, file: string, home: string): RecallError | null {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return brokenLink(file);
  if (typeof code !== "string") return null;
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return damagedIndexError(file, code);
  // A folder in its place fails as EISDIR or as SQLite's disk I/O error, neither of which says so.
  if (existsAsNonFile(file))
    return new RecallError(
      "Unavailable",
      `${file} is not a file; move it aside and run \`recall index\` to build a new index`,
    );
  if (
    ["ENOTDIR", "EACCES", "EPERM", "EROFS", "EEXIST", "ELOOP", "SQLITE_CANTOPEN", "SQLITE_PERM"].includes(
      code,
    )
  ) {
    // Node's errors name the path that failed, which in a usable RECALL_HOME may be its backups
    // folder, not the index: a migration first writes a backup there.
    const failed = (error as { path?: unknown }).path;
    const backups = path.join(path.resolve(home), "backups");
    if (
      typeof failed === "string" &&
      (failed === backups || failed.startsWith(backups + path.sep)) &&
      isFolder(home)
    )
      return new RecallError(
        "Config",
        `RECALL_HOME ${home}: cannot write a backup of the index to ${failed} (${code})`,
      );
    return new RecallError("Config", `RECALL_HOME ${home}: cannot open or create ${file} (${code})`);
  }
  return null;
}

function existsAsNonFile(file: string): boolean {
  try {
    return !statSync(file).isFile();
  } catch {
    return false;
  }
}

/** NotFound only when the index file is really not there (an unreadable one is not "not yet"). */
function checkIndexExists(file: string): void {
  try {
    statSync(file);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    const link = linkTarget(file);
    throw new RecallError(
      "NotFound",
      `no index at ${file}${link === null ? "" : ` (a link to ${link}, not there)`} yet; run \`recall index\` first`,
    );
  }
}

/** Where `file` links to, when it is a symbolic link; else null. */
function linkTarget(file: string): string | null {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : null;
  } catch {
    return null;
  }
}

/**
 * history.db as a link the writer could not follow to a file (a moved disk, a deleted folder):
 * said so, not as an internal error.
 */
function brokenLink(file: string): RecallError | null {
  const link = linkTarget(file);
  if (link === null) return null;
  return new RecallError(
    "Config",
    `${file} is a link to ${link}, which cannot be opened or created (ENOENT); fix or remove the link`,
  );
}

/** Free pages, as a share of the file, past which a migration gives them back. */
const FREE_SHARE_TO_COMPACT = 0.1;

/**
 * A migration that rebuilt a table leaves the old table's pages free in the file: after schema
 * 13 on 1M demo messages, a fifth of 3.2 GiB, so the index a user upgraded stayed larger than a
 * new one would be. Past a tenth of the file they are given back (VACUUM, about 8 s at 2.6 GiB).
 * Without room for VACUUM's copy the pages stay free, for later writes to reuse.
 */
function compactAfterMigration(db: Db, migration: MigrateResult): void {
  if (migration.from === 0 || migration.from === migration.to) return;
  const free = db.pragma("freelist_count", { simple: true }) as number;
  const pages = db.pragma("page_count", { simple: true }) as number;
  if (free > pages * FREE_SHARE_TO_COMPACT) rewriteIntoFreshPages(db);
}

async function openAt(file: string, options: OpenHistoryOptions): Promise<HistoryStore> {
  if (options.readonly) {
    checkIndexExists(file);
    const db = openDatabase(file, { readonly: true });
    let engine: string | undefined;
    try {
      registerFunctions(db);
      engine = readMeta(db, "engine");
    } catch (error) {
      db.close();
      throw error;
    }
    if (engine !== "fts5" && engine !== "plain") {
      db.close();
      throw new RecallError("NotFound", `${file} is not a recall index yet; run \`recall index\` first`);
    }
    return { db, file, engine, migration: null, close: () => db.close() };
  }
  // A first load cut short by an OS crash may have left a torn file (store/first-load.ts).
  recoverFirstLoad(file, path.join(options.home, "backups"));
  makeRecallHome(options.home); // named as RECALL_HOME when it cannot be made
  makePrivateDbFile(file);
  const db = openDatabase(file, { pageSize: HISTORY_PAGE_SIZE });
  try {
    registerFunctions(db);
    const recorded = readMeta(db, "engine") as Engine | undefined;
    const engine = recorded ?? chooseEngine(options.engine, options.probe);
    const migration = await migrate({
      db,
      file,
      migrations: HISTORY_MIGRATIONS,
      context: { engine, projectionVersion: options.projectionVersion },
      backupDir: path.join(options.home, "backups"),
      removeOlderBackups: true,
    });
    compactAfterMigration(db, migration);
    // Missing read indexes (a first load's or a reindex's, running or cut short) are built by the
    // elected writer only (the broker, or a foreground command once it won the election):
    // building them from any opener would take the write lock from under a running reindex.
    readyWriter(db, { buildMissingIndexes: false });
    return {
      db,
      file,
      engine: (readMeta(db, "engine") as Engine) ?? engine,
      migration,
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
