import { RecallError } from "../../core/errors.js";
import type { Db } from "../open.js";

/**
 * Rebuilds a table with an edited definition, the only way SQLite changes a table constraint:
 * `edit` rewrites its CREATE TABLE statement (and must change it). Rows are copied as they are,
 * ids included, and the table's indexes and triggers are created again verbatim. Runs inside the
 * caller's migration transaction; a migration that drops a table others reference turns foreign
 * keys off (Migration.foreignKeysOff).
 */
export function rebuildTable(db: Db, table: string, edit: (sql: string) => string): void {
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
        `SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger')
           AND sql IS NOT NULL ORDER BY type, name`,
      )
      .all(table) as { sql: string }[]
  ).map((r) => r.sql);
  db.exec(rebuilt);
  db.exec(`INSERT INTO ${temporary} SELECT * FROM ${table}`);
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${temporary} RENAME TO ${table}`);
  for (const dependent of dependents) db.exec(dependent);
}
