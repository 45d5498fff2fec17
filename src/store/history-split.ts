import Database from "better-sqlite3";
import { RecallError } from "../core/errors.js";
import { BOUNDED_MERGE_POLICY_SQL } from "./fts-merge.js";
import type { Engine } from "./fts-probe.js";
import { registerFunctions } from "./history-store.js";
import type { Migration } from "./migrate.js";
import { openDatabase, type Db } from "./open.js";
import { DIRTY_QUEUES } from "./embedded-schema.js";
import { legacyTables, SPLIT_LOG } from "./split-log.js";
import { statement } from "./statements.js";

/**
 * history.db split out of an embedded index: recall's tables copied from the host's database
 * (attached as `legacy`) in bounded steps keyed by rowid, the host's change log
 * (store/split-log.ts) applied over what the copy already passed, and the split's own state in
 * recall_history_meta. Only this connection writes history.db until the switch.
 */
export const LEGACY = "legacy";
/** history.db's own schema versions (the copied recall_migrations holds the legacy's). */
export const HISTORY_DB_VERSIONS = "recall_history_migrations";
const META = "recall_history_meta";
const SPLIT_CACHE_KIB = 4096;

export type SplitPhase = "copy" | "switched" | "failed";

/**
 * How much one step takes: the caller sizes each chunk of rows from what rows of that kind
 * cost before (`key`: a table, or the log) and says when the step's time is spent, so a step
 * stops after the chunk that spent it whatever its rows weigh (app/split-pace.ts).
 */
export interface Pace {
  /** Rows for the next chunk of `key` (at least 1). */
  rows(key: string): number;
  /** The chunk just done took `rows` rows (fewer than asked: nothing more was there). */
  took(key: string, rows: number): void;
  spent(): boolean;
}

/** A pace of at most `max` rows and no time bound (readers' and the forwarder's small steps). */
export function rowPace(max: number): Pace {
  let taken = 0;
  return {
    rows: () => Math.max(1, max - taken),
    took: (_key, rows) => void (taken += rows),
    spent: () => taken >= max,
  };
}

export interface HistoryDbContext {
  engine: Engine;
  /** The log's last entry when the copy began: later ones are applied over it. */
  appliedSeq: number;
  backup: string | null;
  at: number;
}

/**
 * history.db v1: the embedded index's tables with the legacy's own definitions (the host has
 * migrated them to the newest embedded version first), a new FTS5 index over the copied
 * documents, and the split's meta. FTS5 is probed on this runtime, not assumed from the legacy.
 */
export const historyDbV1: Migration<HistoryDbContext> = {
  version: 1,
  name: "history.db split from an embedded index",
  up(db, context) {
    if (context.engine !== "fts5")
      throw new RecallError(
        "Unavailable",
        "the split needs SQLite FTS5 for history.db, which this SQLite build lacks",
      );
    const tables = legacyTables(db, LEGACY);
    for (const t of tables) db.exec(t.sql);
    const names = tables.map((t) => t.name);
    const inLegacy = db
      .prepare(
        `SELECT type, name, tbl_name AS tbl, sql FROM ${LEGACY}.sqlite_master WHERE sql IS NOT NULL AND type IN ('index', 'table', 'trigger') ORDER BY type DESC, name`,
      )
      .all() as { type: string; name: string; tbl: string; sql: string }[];
    // The FTS5 table first (its triggers name it), then indexes and recall's triggers on copied tables.
    for (const row of inLegacy)
      if (row.type === "table" && /^CREATE VIRTUAL TABLE/i.test(row.sql) && row.name.startsWith("recall_"))
        db.exec(row.sql);
    for (const row of inLegacy)
      if (row.type !== "table" && names.includes(row.tbl) && !row.name.startsWith("recall_split_"))
        db.exec(row.sql);
    db.exec(BOUNDED_MERGE_POLICY_SQL);
    db.exec(`CREATE TABLE ${META} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const set = db.prepare(`INSERT INTO ${META} (key, value) VALUES (?, ?)`);
    set.run("engine", context.engine);
    set.run("phase", "copy");
    set.run("applied_seq", String(context.appliedSeq));
    set.run("created_at", new Date(context.at).toISOString());
    if (context.backup) set.run("backup", context.backup);
  },
};

/** The writer's connection: history.db as main, the host's file attached as `legacy`. */
export function openSplitTarget(file: string, hostFile: string): Db {
  // SQLite's default page size, as the host's: FTS5's bounded merge steps (store/fts-merge.ts) count pages.
  const db = openDatabase(file);
  try {
    registerFunctions(db);
    // A REPLACE that removes a conflicting document must remove its FTS5 row too (the delete trigger).
    db.pragma("recursive_triggers = ON");
    db.prepare(`ATTACH DATABASE ? AS ${LEGACY}`).run(hostFile);
    // The copy passes each page once: a small cache per file keeps the host process's memory flat
    // (better-sqlite3's default is 16 MB per file and connection).
    for (const schema of ["main", LEGACY]) db.pragma(`${schema}.cache_size = -${SPLIT_CACHE_KIB}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A reader's connection after the switch: history.db read-only as main, so recall's tables are
 * its; the host's own tables (messages, chats), found in no other schema, are read from the
 * host's file, attached read-only.
 */
export function openSplitReader(file: string, hostFile: string): Db {
  const db = openDatabase(file, { readonly: true });
  try {
    registerFunctions(db);
    db.prepare(`ATTACH DATABASE ? AS ${LEGACY}`).run(hostFile);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** One value of history.db's split meta, or undefined (also when the file is not a split's). */
export function splitMeta(db: Db, key: string): string | undefined {
  if (!statement(db, "SELECT 1 FROM main.sqlite_master WHERE name = ?").get(META)) return undefined;
  return (
    statement(db, `SELECT value FROM main.${META} WHERE key = ?`).get(key) as { value: string } | undefined
  )?.value;
}

export function setSplitMeta(db: Db, key: string, value: string): void {
  statement(db, `INSERT OR REPLACE INTO main.${META} (key, value) VALUES (?, ?)`).run(key, value);
}

/** The phase a history.db file records, read without opening it for writing; null when it is none. */
export function recordedPhase(file: string): SplitPhase | null {
  let db: Db | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return (splitMeta(db, "phase") as SplitPhase | undefined) ?? null;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

interface TableShape {
  name: string;
  /** Column list for copying: the rowid named first unless an INTEGER PRIMARY KEY is its alias. */
  copy: string;
}

const shapes = new WeakMap<Db, TableShape[]>();

/** The copied tables, in a fixed order. */
export function splitTables(db: Db): TableShape[] {
  let cached = shapes.get(db);
  if (cached) return cached;
  cached = legacyTables(db, LEGACY).map(({ name }) => {
    const columns = statement(db, `PRAGMA ${LEGACY}.table_info("${name}")`).all() as {
      name: string;
      type: string;
      pk: number;
    }[];
    const pk = columns.filter((c) => c.pk > 0);
    const alias = pk.length === 1 && pk[0]!.type.toUpperCase() === "INTEGER";
    const list = columns.map((c) => `"${c.name}"`).join(", ");
    return { name, copy: alias ? list : `rowid, ${list}` };
  });
  shapes.set(db, cached);
  return cached;
}

const cursorKey = (table: string) => `cursor:${table}`;
const doneKey = (table: string) => `done:${table}`;

/** Documents the copy inserts with fts_deferred = 1 get their FTS5 rows here (the insert trigger skips them). */
function indexDeferred(db: Db, table: string, from: number, to: number): void {
  if (table !== "recall_documents") return;
  statement(
    db,
    "INSERT INTO main.recall_fts (rowid, title, body) SELECT id, title, body FROM main.recall_documents WHERE id > ? AND id <= ? AND fts_deferred = 1",
  ).run(from, to);
}

/**
 * Copies the next rows of the first table not yet done, chunk by chunk (by rowid) until the
 * pace is spent, with its cursor, in one transaction. A chunk that comes back short marks the
 * table done. Returns the rows copied, or null when every table is done.
 */
export function copyStep(db: Db, pace: Pace): { table: string; rows: number } | null {
  return db.transaction(() => {
    const table = splitTables(db).find((t) => splitMeta(db, doneKey(t.name)) === undefined);
    if (!table) return null;
    let after = Number(splitMeta(db, cursorKey(table.name)) ?? 0);
    let copied = 0;
    for (;;) {
      const n = pace.rows(table.name);
      const last = statement(
        db,
        `SELECT max(r) AS r, count(*) AS n FROM (SELECT rowid AS r FROM ${LEGACY}."${table.name}" WHERE rowid > ? ORDER BY rowid LIMIT ?)`,
      ).get(after, n) as { r: number | null; n: number };
      if (last.r !== null) {
        statement(
          db,
          `INSERT OR REPLACE INTO main."${table.name}" (${table.copy}) SELECT ${table.copy} FROM ${LEGACY}."${table.name}" WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
        ).run(after, last.r);
        indexDeferred(db, table.name, after, last.r);
        after = last.r;
        copied += last.n;
      }
      pace.took(table.name, last.n);
      if (last.n < n) {
        setSplitMeta(db, doneKey(table.name), "1");
        break;
      }
      if (pace.spent()) break;
    }
    setSplitMeta(db, cursorKey(table.name), String(after));
    return { table: table.name, rows: copied };
  })();
}

/**
 * Applies the next logged changes (none past `through`), chunk by chunk until the pace is spent,
 * in one transaction: each row the copy already passed is replaced by the legacy's row as it is
 * now, or removed when it is gone there. Returns how many entries were applied.
 */
export function applyLogStep(db: Db, pace: Pace, through = Number.MAX_SAFE_INTEGER): number {
  return db.transaction(() => {
    let applied = Number(splitMeta(db, "applied_seq") ?? 0);
    let total = 0;
    const tables = new Map(splitTables(db).map((t) => [t.name, t]));
    for (;;) {
      const n = pace.rows(LOG_KEY);
      const entries = statement(
        db,
        `SELECT seq, tbl, rid FROM ${LEGACY}.${SPLIT_LOG} WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      ).all(applied, through, n) as { seq: number; tbl: string; rid: number }[];
      for (const { tbl, rid } of entries) applyEntry(db, tables.get(tbl), rid);
      pace.took(LOG_KEY, entries.length);
      if (entries.length > 0) applied = entries.at(-1)!.seq;
      total += entries.length;
      if (entries.length < n || pace.spent()) break;
    }
    if (total > 0) setSplitMeta(db, "applied_seq", String(applied));
    return total;
  })();
}

/** The pace's key for log entries (a table's name keys its copy). */
export const LOG_KEY = "recall_split_log";

function applyEntry(db: Db, table: TableShape | undefined, rid: number): void {
  if (!table) return;
  const tbl = table.name;
  // Rows past the cursor of a table still being copied are copied as they are then.
  if (splitMeta(db, doneKey(tbl)) === undefined && rid > Number(splitMeta(db, cursorKey(tbl)) ?? 0)) return;
  statement(db, `DELETE FROM main."${tbl}" WHERE rowid = ?`).run(rid);
  statement(
    db,
    `INSERT OR REPLACE INTO main."${tbl}" (${table.copy}) SELECT ${table.copy} FROM ${LEGACY}."${tbl}" WHERE rowid = ?`,
  ).run(rid);
  indexDeferred(db, tbl, rid - 1, rid);
}

/** Logged changes not applied yet, counted up to `cap`. */
export function pendingLog(db: Db, cap: number): number {
  const applied = Number(splitMeta(db, "applied_seq") ?? 0);
  return (
    statement(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${LEGACY}.${SPLIT_LOG} WHERE seq > ? LIMIT ?)`,
    ).get(applied, cap) as { n: number }
  ).n;
}

export function lastLoggedSeq(db: Db): number {
  return (
    (statement(db, `SELECT max(seq) AS s FROM ${LEGACY}.${SPLIT_LOG}`).get() as { s: number | null }).s ?? 0
  );
}

/**
 * The next rows of a table in one schema, for its canonical dump: rowid order, raw values with
 * integers exact (BigInt), at most `limit`.
 */
export function dumpRows(
  db: Db,
  schema: "main" | typeof LEGACY,
  table: string,
  after: bigint,
  limit: number,
) {
  const shape = splitTables(db).find((t) => t.name === table)!;
  return statement(
    db,
    `SELECT rowid, ${shape.copy} FROM ${schema}."${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  )
    .raw()
    .safeIntegers()
    .all(after, limit) as unknown[][];
}

/** FTS5 rows history.db holds (its docsize table: one per indexed document), counted from a rowid. */
export function ftsRowsAfter(db: Db, after: number, limit: number): { n: number; last: number | null } {
  return statement(
    db,
    "SELECT count(*) AS n, max(id) AS last FROM (SELECT id FROM main.recall_fts_docsize WHERE id > ? ORDER BY id LIMIT ?)",
  ).get(after, limit) as { n: number; last: number | null };
}

/**
 * The switch, when what is left of the log is at most `fits` entries (what the caller's pace
 * says one step applies in its time): under the host's write lock (no host write can be logged
 * meanwhile) the last entries are applied and history.db becomes the one readers read. False
 * when more came in (the caller applies it unlocked and tries again).
 */
export function switchStep(db: Db, fits: number): boolean {
  return db
    .transaction(() => {
      if (pendingLog(db, fits + 1) > fits) return false;
      applyLogStep(db, rowPace(fits));
      setSplitMeta(db, "phase", "switched");
      return true;
    })
    .immediate();
}

/**
 * --drop-legacy on history.db's side: its copies of the dirty queues go (the host's, which the
 * host's triggers fill, are the ones its indexer drains now: a name history.db lacks is found in
 * the attached host's file), and the drop is recorded.
 */
export function dropQueueCopies(db: Db, at: string): void {
  db.transaction(() => {
    for (const name of DIRTY_QUEUES) db.exec(`DROP TABLE IF EXISTS main."${name}"`);
    setSplitMeta(db, "legacy_dropped_at", at);
  })();
}
