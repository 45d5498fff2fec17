import { searchTextFromRead } from "../../projection/index.js";
import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";

/** FTS5 over (title, body) holding no copy of the text: rows are deleted by rowid alone. */
const LEAN_FTS_SQL = (name: string) => `
  CREATE VIRTUAL TABLE ${name} USING fts5(
    title, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
  )`;
/** A row inserted with its text (fts_deferred = 0: tests, one-off writers) is indexed as before. */
const LEAN_FTS_TRIGGERS = `
  CREATE TRIGGER recall_documents_fts_insert AFTER INSERT ON recall_documents WHEN new.fts_deferred = 0 BEGIN
    INSERT INTO recall_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
  END;
  CREATE TRIGGER recall_documents_fts_delete AFTER DELETE ON recall_documents BEGIN
    DELETE FROM recall_fts WHERE rowid = old.id;
  END`;

/**
 * One stored copy of each record's text (issue #32). Until now a document kept its searched text
 * (`body`) beside its record's read text, and the FTS5 index read that copy as its external
 * content: text stored twice, over half the index. Now:
 * - documents name their record (`record`, a recall_records rowid), and a document's `body` is
 *   '' when its record's read text gives its searched text (projection/search-text.ts: 99.99 %
 *   of a demo corpus's documents); readers resolve it (store/document-text.ts);
 * - the FTS5 index is contentless-delete: it needs no stored text to delete a row, and writers
 *   replace the rows of changed texts themselves (indexer/ingest.ts, fts-queue.ts): no trigger
 *   reads a stored `body` but the insert trigger, for rows written with their text.
 * The plain engine keeps every body (its folded copy is built from it by trigger).
 * Existing FTS5 rows are re-inserted from the stored bodies before they are thinned.
 */
export const historyV10: Migration<HistorySchemaContext> = {
  version: 10,
  name: "one stored copy of the text, contentless FTS5",
  up(db) {
    db.exec("ALTER TABLE recall_documents ADD COLUMN record INTEGER");
    const fts = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'recall_fts'").get() !== undefined;
    if (!fts) return;
    db.exec(`
      DROP TRIGGER IF EXISTS recall_documents_fts_insert;
      DROP TRIGGER IF EXISTS recall_documents_fts_update;
      DROP TRIGGER IF EXISTS recall_documents_fts_delete;
      ${LEAN_FTS_SQL("recall_fts_lean")};
    `);
    // Merge settings a first load or the broker left (automerge, crisismerge) carry over.
    const settings = db
      .prepare("SELECT k, v FROM recall_fts_config WHERE k IN ('automerge', 'crisismerge', 'usermerge')")
      .all() as { k: string; v: number }[];
    // FTS5 takes a command's name as written, not bound (k is one of the three names above).
    for (const { k, v } of settings)
      db.exec(
        `INSERT INTO recall_fts_lean (recall_fts_lean, rank) VALUES ('${k}', ${Math.trunc(Number(v))})`,
      );
    db.exec(`
      INSERT INTO recall_fts_lean (rowid, title, body) SELECT id, title, body FROM recall_documents;
      DROP TABLE recall_fts;
      ALTER TABLE recall_fts_lean RENAME TO recall_fts;
      ${LEAN_FTS_TRIGGERS};
      UPDATE recall_documents SET record = (SELECT r.id FROM recall_records r
        WHERE r.conversation = recall_documents.conversation AND r.record_key = recall_documents.source_key);
    `);
    db.function("recall_search_text", { deterministic: true }, (text: unknown) =>
      typeof text === "string" ? searchTextFromRead(text) : null,
    );
    db.exec(`UPDATE recall_documents SET body = '' WHERE record IS NOT NULL AND body <> ''
      AND body = recall_search_text((SELECT text FROM recall_records WHERE id = recall_documents.record))`);
  },
};
