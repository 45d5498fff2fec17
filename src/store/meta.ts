import type { Db } from "./open.js";
import { statement } from "./statements.js";

/** One recall_meta value (a current index: the table exists; see history-store's readMeta for opening). */
export function getMeta(db: Db, key: string): string | undefined {
  return (
    statement(db, "SELECT value FROM recall_meta WHERE key = ?").get(key) as { value: string } | undefined
  )?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  statement(db, "INSERT OR REPLACE INTO recall_meta (key, value) VALUES (?, ?)").run(key, value);
}

export function deleteMeta(db: Db, key: string): void {
  statement(db, "DELETE FROM recall_meta WHERE key = ?").run(key);
}
