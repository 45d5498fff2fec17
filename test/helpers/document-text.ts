import type Database from "better-sqlite3";
import { searchTextFromRead } from "../../src/projection/index.js";
import { documentBody, RECORD_TEXT_COLUMN, type StoredBody } from "../../src/store/document-text.js";

type Db = Database.Database;

/**
 * Rewrites the searched text of the documents `where` selects (SQL over alias d) as another writer
 * would: the body stored apart and the FTS row replaced. history.db's FTS5 table keeps no text
 * (schema v10), so a plain UPDATE of `body` no longer reaches the index. `renumber` also moves
 * each document to the next rowid, as a renewed text does.
 */
export function rewriteDocumentText(
  db: Db,
  where: string,
  edit: (body: string) => string,
  options: { renumber?: boolean } = {},
): number[] {
  const rows = db
    .prepare(`SELECT d.id, d.title, d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d WHERE ${where}`)
    .all() as ({ id: number; title: string } & StoredBody)[];
  const moved: number[] = [];
  for (const row of rows) {
    const body = edit(documentBody(row));
    db.prepare("DELETE FROM recall_fts WHERE rowid = ?").run(row.id);
    let id = row.id;
    if (options.renumber) {
      id = db
        .prepare(
          "UPDATE recall_documents SET body = ?, id = (SELECT max(id) + 1 FROM recall_documents) WHERE id = ? RETURNING id",
        )
        .pluck()
        .get(body, row.id) as number;
    } else db.prepare("UPDATE recall_documents SET body = ? WHERE id = ?").run(body, row.id);
    db.prepare("INSERT INTO recall_fts (rowid, title, body) VALUES (?, ?, ?)").run(id, row.title, body);
    moved.push(id);
  }
  return moved;
}

/**
 * Documents' rows (`columns` over alias d, then `rest`: WHERE, ORDER BY…) with `body` as it is
 * searched: a '' body stands for its record's read text (store/document-text.ts).
 */
export function documentRows<T extends object>(
  db: Db,
  columns: string,
  rest = "",
  ...params: unknown[]
): (T & { body: string })[] {
  const rows = db
    .prepare(`SELECT ${columns}, d.body AS body, ${RECORD_TEXT_COLUMN} FROM recall_documents d ${rest}`)
    .all(...params) as (T & StoredBody)[];
  return rows.map(({ recordText, ...row }) => ({
    ...row,
    body: documentBody({ body: row.body, recordText }),
  })) as (T & {
    body: string;
  })[];
}

/**
 * A temporary view `recall_document_text` on this connection: documents with `body` as searched,
 * for tests that match bodies in SQL.
 */
export function useDocumentText(db: Db): void {
  db.function("recall_search_text", { deterministic: true }, (text: unknown) =>
    typeof text === "string" ? searchTextFromRead(text) : null,
  );
  db.exec(`CREATE TEMP VIEW IF NOT EXISTS recall_document_text AS
    SELECT d.id, d.hit_id, d.kind, d.role, d.at, d.conversation, d.source_key, d.is_compaction_summary, d.title,
      CASE WHEN d.body = '' THEN recall_search_text((SELECT rt.text FROM recall_records rt WHERE rt.id = d.record))
        ELSE d.body END AS body
    FROM recall_documents d`);
}
