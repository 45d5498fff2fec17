import type { Db } from "./open.js";

/**
 * The split's change log in the host's database: a trigger on each of recall's legacy tables
 * records the rowid of every row written, so rows the bounded copy already passed are copied
 * again (store/history-split.ts). The log lives beside the legacy tables because a trigger can
 * only write its own database; the legacy tables themselves are never changed by it.
 */
export const SPLIT_LOG = "recall_split_log";
const TRIGGER_PREFIX = "recall_split_";

/** recall's legacy tables in `schema`: every recall_ table but the FTS5 index (rebuilt, not copied) and the log. */
export function legacyTables(db: Db, schema = "main"): { name: string; sql: string }[] {
  const rows = db
    .prepare(
      `SELECT name, sql FROM "${schema}".sqlite_master WHERE type = 'table' AND name LIKE 'recall\\_%' ESCAPE '\\' ORDER BY name`,
    )
    .all() as { name: string; sql: string }[];
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name);
  return rows.filter(
    (r) => r.name !== SPLIT_LOG && !virtual.some((v) => r.name === v || r.name.startsWith(`${v}_`)),
  );
}

/** Installs the log and its triggers (idempotent), in one write transaction on the host. */
export function installSplitLog(db: Db): void {
  db.transaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${SPLIT_LOG} (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, rid INTEGER NOT NULL)`,
    );
    for (const { name } of legacyTables(db)) {
      const log = (row: "new" | "old") =>
        `INSERT INTO ${SPLIT_LOG} (tbl, rid) VALUES ('${name}', ${row}.rowid);`;
      db.exec(`
        CREATE TRIGGER IF NOT EXISTS ${TRIGGER_PREFIX}${name}_i AFTER INSERT ON ${name} BEGIN ${log("new")} END;
        CREATE TRIGGER IF NOT EXISTS ${TRIGGER_PREFIX}${name}_u AFTER UPDATE ON ${name} BEGIN ${log("old")} ${log("new")} END;
        CREATE TRIGGER IF NOT EXISTS ${TRIGGER_PREFIX}${name}_d AFTER DELETE ON ${name} BEGIN ${log("old")} END;
      `);
    }
  }).immediate();
}

/** Removes the log and its triggers (a failed split): the host's schema is as it was before. */
export function removeSplitLog(db: Db): void {
  db.transaction(() => {
    removeSplitTriggers(db);
    db.exec(`DROP TABLE IF EXISTS ${SPLIT_LOG}`);
  }).immediate();
}

/** The log's triggers alone (--drop-legacy: nothing more is logged; what is logged is still applied). */
export function removeSplitTriggers(db: Db): void {
  const triggers = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '${TRIGGER_PREFIX}%' AND tbl_name LIKE 'recall\\_%' ESCAPE '\\'`,
    )
    .all() as { name: string }[];
  for (const { name } of triggers) db.exec(`DROP TRIGGER IF EXISTS "${name}"`);
}

export function hasSplitLog(db: Db, schema = "main"): boolean {
  return (
    db.prepare(`SELECT 1 FROM "${schema}".sqlite_master WHERE type = 'table' AND name = ?`).get(SPLIT_LOG) !==
    undefined
  );
}

/** The last logged change, 0 when none. */
export function lastLogged(db: Db, schema = "main"): number {
  const row = db.prepare(`SELECT max(seq) AS seq FROM "${schema}".${SPLIT_LOG}`).get() as {
    seq: number | null;
  };
  return row.seq ?? 0;
}

/**
 * Entries history.db has applied (recorded there) are no longer needed: at most `limit` of them
 * go in one statement (the log holds every write since the split began). Returns how many went.
 */
export function trimSplitLog(db: Db, through: number, schema = "main", limit = 2_000): number {
  return db
    .prepare(
      `DELETE FROM "${schema}".${SPLIT_LOG} WHERE seq IN (SELECT seq FROM "${schema}".${SPLIT_LOG} WHERE seq <= ? ORDER BY seq LIMIT ?)`,
    )
    .run(through, limit).changes;
}
