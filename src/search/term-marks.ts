import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

export interface MarkedRow {
  id: number;
  title: string;
  body: string;
}

const HL_OPEN = "\x01";
const countOf = (text: string, ch: string) => {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
};

/**
 * How often each FTS5 term (`"word"` or `"stem"*`) occurs in each row's title and body, counted
 * by FTS5's own tokenizer: for rows whose text the scorer cannot tokenize itself (anything not
 * ASCII). The index keeps no copy of the text (schema v10), so FTS5's highlight() has nothing to
 * mark there: the rows go into a temporary FTS5 table of this connection (a temp table is
 * writable on a read-only connection, inside a read transaction), are marked, and leave.
 */
export function markedCounts(
  db: Db,
  rows: readonly MarkedRow[],
  terms: readonly string[],
): Map<number, { title: number[]; body: number[] }> {
  const out = new Map(
    rows.map((r) => [r.id, { title: terms.map(() => 0), body: terms.map(() => 0) }] as const),
  );
  if (rows.length === 0) return out;
  db.exec(
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_marks USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2')",
  );
  const insert = statement(db, "INSERT INTO temp.recall_marks (rowid, title, body) VALUES (?, ?, ?)");
  const byId = new Map(rows.map((r) => [r.id, r]));
  try {
    for (const r of rows) insert.run(r.id, r.title, r.body);
    terms.forEach((term, i) => {
      const marked = statement(
        db,
        `SELECT rowid AS id, highlight(recall_marks, 0, char(1), char(2)) AS title,
           highlight(recall_marks, 1, char(1), char(2)) AS body
         FROM temp.recall_marks WHERE recall_marks MATCH ?`,
      ).all(term) as MarkedRow[];
      for (const m of marked) {
        const row = byId.get(m.id)!;
        const counts = out.get(m.id)!;
        counts.title[i] = countOf(m.title, HL_OPEN) - countOf(row.title, HL_OPEN);
        counts.body[i] = countOf(m.body, HL_OPEN) - countOf(row.body, HL_OPEN);
      }
    });
  } finally {
    statement(db, "DELETE FROM temp.recall_marks").run();
  }
  return out;
}
