import type { Db } from "./open.js";
import { pluckedStatement } from "./statements.js";

/**
 * The highest document rowid now (0 when there is none): term statistics' mark (see
 * search/term-cache.ts), which rows above are new to.
 */
export function topRowid(db: Db): number {
  return (pluckedStatement(db, "SELECT max(id) FROM recall_documents").get() as number | null) ?? 0;
}
