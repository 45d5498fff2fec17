import type { Statement } from "better-sqlite3";
import type { Db } from "./open.js";

const caches = new WeakMap<Db, Map<string, Statement>>();

function cached(db: Db, key: string, prepare: () => Statement): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Statement>()));
  let stmt = cache.get(key);
  if (!stmt) cache.set(key, (stmt = prepare()));
  return stmt;
}

/** A prepared statement reused for the life of the connection (queries vary only in shape, not values). */
export function statement(db: Db, sql: string): Statement {
  return cached(db, sql, () => db.prepare(sql));
}

/**
 * The same, returning each row's first column (pluck mode). Cached apart: pluck() changes a
 * statement for everyone who uses it, so a shared one must never be switched.
 */
export function pluckedStatement(db: Db, sql: string): Statement {
  return cached(db, `pluck\u0000${sql}`, () => db.prepare(sql).pluck());
}

/** Whether the connection's main schema has a table (a virtual one included) of this name. */
export function hasTable(db: Db, name: string): boolean {
  return hasSchemaObject(db, "table", name);
}

function hasSchemaObject(db: Db, type: "table" | "view", name: string): boolean {
  return (
    statement(db, "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?").get(type, name) !== undefined
  );
}

const knownObjects = new WeakMap<Db, Map<string, boolean>>();

/**
 * Asked once per connection, its answer kept: for readers choosing how to read an index they
 * never migrate (a table or view a migration adds later on the same connection goes unseen).
 */
function hasSchemaObjectOnce(db: Db, type: "table" | "view", name: string): boolean {
  let known = knownObjects.get(db);
  if (!known) knownObjects.set(db, (known = new Map<string, boolean>()));
  const key = `${type} ${name}`;
  let has = known.get(key);
  if (has === undefined) known.set(key, (has = hasSchemaObject(db, type, name)));
  return has;
}

/** hasTable asked once per connection (hasSchemaObjectOnce). */
export function hasTableOnce(db: Db, name: string): boolean {
  return hasSchemaObjectOnce(db, "table", name);
}

/** Whether the connection's main schema has a view of this name, asked once per connection. */
export function hasViewOnce(db: Db, name: string): boolean {
  return hasSchemaObjectOnce(db, "view", name);
}
