import { RecallError } from "../core/errors.js";
import type { Db } from "./open.js";
import { hasTable } from "./statements.js";

/**
 * A damaged index, said the same way wherever the damage is found: when the file is opened
 * (history-store.ts), or later, when a search, a read, the indexer, `recall status --check`, an
 * MCP call or an HTTP request reaches a damaged page. SQLite reports the latter as
 * SQLITE_CORRUPT (`database disk image is malformed`), FTS5 as `fts5: corruption …`, and a
 * foreign file as SQLITE_NOTADB; tools wrap what they do not know as Internal, so the chain of
 * causes is searched.
 */
export function damagedIndexError(file: string, code: string): RecallError {
  return new RecallError(
    "Unavailable",
    `${file} is damaged (${code}); move it aside and run \`recall index\` to build a new index`,
  );
}

const CORRUPT_MESSAGE = /database disk image is malformed|fts5: corruption|file is not a database/i;

/** The SQLite code of the damage behind an error (or one of its causes), or null for none. */
export function damageCode(error: unknown): string | null {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB"))
      return code;
    if (e instanceof Error && CORRUPT_MESSAGE.test(e.message)) return "SQLITE_CORRUPT";
  }
  return null;
}

/** The error as a damaged-index error for `file`, or null when it is not about damage. */
export function asDamagedIndex(error: unknown, file: string): RecallError | null {
  const code = damageCode(error);
  return code === null ? null : damagedIndexError(file, code);
}

/**
 * A quick check of the whole index (`recall status --check`) on a reader's connection: SQLite's
 * quick_check of every page and b-tree, then a read of every FTS5 segment through an fts5vocab
 * table in the connection's own temp schema (FTS5's 'integrity-check' command is a write, which
 * a reader must not take: it would hold the writer's lock for the whole check). Bytes scribbled
 * inside a segment leave the b-tree valid; decoding the segment finds them. Throws the
 * damaged-index error.
 */
export function checkIndex(db: Db, file: string): void {
  try {
    const result = db.pragma("quick_check", { simple: true });
    if (result !== "ok") throw damagedIndexError(file, "SQLITE_CORRUPT");
    if (!hasTable(db, "recall_fts")) return;
    db.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_check_terms USING fts5vocab(main, recall_fts, 'row')",
    );
    try {
      db.prepare("SELECT count(*), sum(doc), sum(cnt) FROM temp.recall_check_terms").get();
    } finally {
      db.exec("DROP TABLE IF EXISTS temp.recall_check_terms");
    }
  } catch (error) {
    throw asDamagedIndex(error, file) ?? error;
  }
}
