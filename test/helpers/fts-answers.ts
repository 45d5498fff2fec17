import Database from "better-sqlite3";

type Db = Database.Database;

/** The rows each word finds in recall_fts, in rowid order (each word searched as a phrase). */
export function ftsRows(db: Db, words: readonly string[]): number[][] {
  const find = db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid").pluck();
  return words.map((w) => find.all(`"${w}"`) as number[]);
}

/** The same for a history.db file, after FTS5's integrity check of its index. */
export function checkedFtsRows(file: string, words: readonly string[]): number[][] {
  const db = new Database(file);
  try {
    db.exec("INSERT INTO recall_fts (recall_fts) VALUES ('integrity-check')");
    return ftsRows(db, words);
  } finally {
    db.close();
  }
}
