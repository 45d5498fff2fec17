import { RecallError } from "../../core/errors.js";
import type { Db } from "../open.js";

export interface RebuildOptions {
  /** Columns the copy fills and the expressions over the old table's row that fill them (default: every column as it is). */
  copy?: { into: readonly string[]; from: readonly string[] };
  /** Indexes and triggers of the old table not created again, by name. */
  omit?: readonly string[];
}

/**
 * Rebuilds a table with an edited definition, the only way SQLite changes a table constraint or
 * a column's kind: `edit` rewrites its CREATE TABLE statement (and must change it). Rows are
 * copied as they are, ids included (or through `copy`), and the table's indexes and triggers
 * are created again verbatim (but those `omit` names). An AUTOINCREMENT table keeps its
 * sequence: ids above the highest left are never used twice. Runs inside the caller's migration
 * transaction; a migration that drops a table others reference turns foreign keys off
 * (Migration.foreignKeysOff).
 */
export function rebuildTable(
  db: Db,
  table: string,
  edit: (sql: string) => string,
  options: RebuildOptions = {},
): void {
  const temporary = `${table}_rebuilt`;
  const sql = (
    db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as {
      sql: string;
    }
  ).sql;
  const edited = edit(sql);
  // A table renamed by an earlier rebuild is stored as CREATE TABLE "name" (SQLite quotes it).
  const rebuilt = edited.replace(new RegExp(`^CREATE TABLE "?${table}"? \\(`), `CREATE TABLE ${temporary} (`);
  if (edited === sql || !rebuilt.startsWith(`CREATE TABLE ${temporary} (`))
    throw new RecallError("Internal", `${table} is not the table this migration expects`);
  const dependents = (
    db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger')
           AND sql IS NOT NULL ORDER BY type, name`,
      )
      .all(table) as { name: string; sql: string }[]
  ).filter((d) => !options.omit?.includes(d.name));
  const sequence = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get()
    ? (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck().get(table) as number | undefined)
    : undefined;
  db.exec(rebuilt);
  const copy = options.copy;
  db.exec(
    copy
      ? `INSERT INTO ${temporary} (${copy.into.join(", ")}) SELECT ${copy.from.join(", ")} FROM ${table}`
      : `INSERT INTO ${temporary} SELECT * FROM ${table}`,
  );
  db.exec(`DROP TABLE ${table}`);
  // Triggers on other tables (an embedded index's on the host's) name the table: with the table
  // dropped, a checked rename finds them broken. The new table takes the old name, so they hold.
  const legacy = db.pragma("legacy_alter_table", { simple: true }) as number;
  db.pragma("legacy_alter_table = ON");
  try {
    db.exec(`ALTER TABLE ${temporary} RENAME TO ${table}`);
  } finally {
    db.pragma(`legacy_alter_table = ${legacy ? "ON" : "OFF"}`);
  }
  if (sequence !== undefined) {
    db.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?").run(sequence, table);
    // An emptied table's copy left no row behind.
    db.prepare(
      "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
    ).run(table, sequence, table);
  }
  for (const dependent of dependents) db.exec(dependent.sql);
}
