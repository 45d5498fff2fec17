import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/** A session filter matches the exact id and every session the value is a known alias of. */
export function expandSession(db: Db, value: string): string[] {
  const rows = statement(db, "SELECT session FROM recall_session_aliases WHERE alias = ?").all(value) as {
    session: string;
  }[];
  return [...new Set([value, ...rows.map((r) => r.session)])];
}
