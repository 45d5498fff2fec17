import type { Statement } from "better-sqlite3";
import type { Db } from "./open.js";

const caches = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement reused for the life of the connection (queries vary only in shape, not values). */
export function statement(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
