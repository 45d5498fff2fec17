import { derivedHitSql } from "../hit-ids.js";
import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/** The columns a record's row holds for its document (present when projection_version is set). */
const DOCUMENT_COLUMNS = [
  "project",
  "job",
  "run",
  "message",
  "app_id",
  "chat_id",
  "title",
  "body",
  "is_compaction_summary",
  "projection_truncated",
  "projection_version",
  "fts_deferred",
] as const;

const RECORD_COLUMNS = [
  "conversation_ref",
  "ordinal",
  "record_key",
  "at",
  "role",
  "kind",
  "own_hit_id",
  "text",
  "truncated",
  "cursor",
  "model",
  "branch",
  "epoch",
] as const;

const ROWS_TABLE = `
  CREATE TABLE recall_record_rows (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_ref INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    record_key TEXT NOT NULL,
    at INTEGER NOT NULL,
    role TEXT NOT NULL,
    kind TEXT NOT NULL,
    own_hit_id TEXT,
    text TEXT NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0,
    cursor TEXT,
    model TEXT,
    branch TEXT,
    epoch INTEGER NOT NULL DEFAULT 0,
    -- The record's document, searched under the row's id, when projection_version is set.
    project TEXT,
    job TEXT,
    run TEXT,
    message TEXT,
    app_id INTEGER,
    chat_id INTEGER,
    title TEXT NOT NULL DEFAULT '',
    body TEXT NOT NULL DEFAULT '',
    is_compaction_summary INTEGER NOT NULL DEFAULT 0,
    projection_truncated INTEGER NOT NULL DEFAULT 0,
    projection_version INTEGER,
    fts_deferred INTEGER NOT NULL DEFAULT 0
  )`;

/**
 * The views readers read. A document is its record's row with a projection version; the source,
 * agent, session and conversation id are its conversation's. A row this migration made for a
 * document that had no record of its own (no writer leaves one since schema 10) has a negative
 * ordinal and is no record.
 */
const HISTORY_VIEWS_SQL = `
  CREATE VIEW recall_records AS
    SELECT r.id AS id, c.id AS conversation, r.ordinal AS ordinal, r.record_key AS record_key, r.at AS at,
      r.role AS role, r.kind AS kind, r.own_hit_id AS own_hit_id,
      CASE WHEN r.own_hit_id IS NULL THEN ${derivedHitSql("r.record_key", "c.id", "r.kind")}
        ELSE nullif(r.own_hit_id, '') END AS hit_id,
      r.text AS text, r.truncated AS truncated, r.cursor AS cursor, r.model AS model, r.branch AS branch,
      r.epoch AS epoch
    FROM recall_record_rows r JOIN recall_conversations c ON c.ref = r.conversation_ref
    WHERE r.ordinal >= 0;
  CREATE VIEW recall_documents AS
    SELECT r.id AS id, c.source AS source, r.record_key AS source_key, r.own_hit_id AS own_hit_id,
      coalesce(r.own_hit_id, ${derivedHitSql("r.record_key", "c.id", "r.kind")}) AS hit_id,
      r.kind AS kind, c.agent AS agent, r.at AS at, r.project AS project, c.session AS session, r.job AS job,
      r.run AS run, r.message AS message, c.id AS conversation, r.cursor AS cursor, r.app_id AS app_id,
      r.chat_id AS chat_id, r.role AS role, r.title AS title, r.body AS body,
      r.is_compaction_summary AS is_compaction_summary, r.projection_truncated AS projection_truncated,
      r.projection_version AS projection_version, r.fts_deferred AS fts_deferred,
      CASE WHEN r.ordinal >= 0 THEN r.id END AS record, r.text AS record_text,
      r.conversation_ref AS conversation_ref
    FROM recall_record_rows r JOIN recall_conversations c ON c.ref = r.conversation_ref
    WHERE r.projection_version IS NOT NULL`;

const CLEAR_DOCUMENT_SET = `project = NULL, job = NULL, run = NULL, message = NULL, app_id = NULL, chat_id = NULL,
  title = '', body = '', is_compaction_summary = 0, projection_truncated = 0, projection_version = NULL,
  fts_deferred = 0`;

/** A view's NEW row has no column defaults: the table's, for the columns an insert left out. */
const NEW_DOCUMENT_VALUES: Record<(typeof DOCUMENT_COLUMNS)[number], string> = {
  project: "new.project",
  job: "new.job",
  run: "new.run",
  message: "new.message",
  app_id: "new.app_id",
  chat_id: "new.chat_id",
  title: "coalesce(new.title, '')",
  body: "coalesce(new.body, '')",
  is_compaction_summary: "coalesce(new.is_compaction_summary, 0)",
  projection_truncated: "coalesce(new.projection_truncated, 0)",
  projection_version: "new.projection_version",
  fts_deferred: "coalesce(new.fts_deferred, 0)",
};

/**
 * Writes through the documents view, for the writers that still write documents by their old
 * columns (forget, redaction sweeps, reindex, tests): an insert becomes its record's document
 * (the one named, else its conversation's record under its key) or a row of its own, an update
 * rewrites the document's own columns, a delete takes the document off its row. The transcript
 * writer writes the rows itself (indexer/ingest.ts).
 */
function viewTriggersSql(fts: boolean): string {
  const conversation = "coalesce(new.conversation, new.source || ':' || new.source_key)";
  const ref = `(SELECT ref FROM recall_conversations WHERE id = ${conversation})`;
  // The record the document belongs to: the one named, else its conversation's under its key.
  const target = `coalesce(new.record, (SELECT id FROM recall_record_rows
      WHERE conversation_ref = ${ref} AND record_key = new.source_key))`;
  const setDocument = DOCUMENT_COLUMNS.map((c) => `${c} = ${NEW_DOCUMENT_VALUES[c]}`).join(", ");
  return `
  CREATE TRIGGER recall_documents_insert INSTEAD OF INSERT ON recall_documents BEGIN
    SELECT RAISE(ABORT, 'UNIQUE constraint failed: recall_documents.source, recall_documents.source_key')
      WHERE EXISTS (SELECT 1 FROM recall_record_rows WHERE id = ${target} AND projection_version IS NOT NULL);
    INSERT INTO recall_conversations (id, source, agent, kind, project, session)
      VALUES (${conversation}, new.source, new.agent, new.kind, new.project, new.session)
      ON CONFLICT (id) DO NOTHING;
    UPDATE recall_record_rows SET ${setDocument} WHERE id = ${target};
    INSERT INTO recall_record_rows (id, conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text,
        cursor, ${DOCUMENT_COLUMNS.join(", ")})
      SELECT new.id, ${ref},
        (SELECT coalesce(max(ordinal) + 1, 0) FROM recall_record_rows WHERE conversation_ref = ${ref}),
        new.source_key, new.at, new.role, new.kind, new.own_hit_id, '', new.cursor,
        ${DOCUMENT_COLUMNS.map((c) => NEW_DOCUMENT_VALUES[c]).join(", ")}
      WHERE ${target} IS NULL;
    ${
      fts
        ? `INSERT INTO recall_fts (rowid, title, body)
      SELECT ${target}, new.title, new.body WHERE coalesce(new.fts_deferred, 0) = 0;`
        : ""
    }
  END;
  CREATE TRIGGER recall_documents_update INSTEAD OF UPDATE ON recall_documents BEGIN
    UPDATE recall_record_rows SET id = new.id, ${setDocument} WHERE id = old.id;
  END;
  CREATE TRIGGER recall_documents_delete INSTEAD OF DELETE ON recall_documents BEGIN
    DELETE FROM recall_document_participants WHERE document = old.id;
    ${fts ? "DELETE FROM recall_fts WHERE rowid = old.id;" : ""}
    UPDATE recall_record_rows SET ${CLEAR_DOCUMENT_SET} WHERE id = old.id;
  END;
  ${
    fts
      ? `CREATE TRIGGER recall_record_rows_fts_delete AFTER DELETE ON recall_record_rows
    WHEN old.projection_version IS NOT NULL BEGIN
    DELETE FROM recall_fts WHERE rowid = old.id;
  END;`
      : `CREATE TRIGGER recall_record_rows_plain_insert AFTER INSERT ON recall_record_rows
    WHEN new.projection_version IS NOT NULL BEGIN
    INSERT INTO recall_plain (id, folded) VALUES (new.id, recall_fold(new.title || char(10) || new.body));
  END;
  CREATE TRIGGER recall_record_rows_plain_update AFTER UPDATE OF title, body, projection_version ON recall_record_rows
    BEGIN
    DELETE FROM recall_plain WHERE id = old.id;
    INSERT INTO recall_plain (id, folded) SELECT new.id, recall_fold(new.title || char(10) || new.body)
      WHERE new.projection_version IS NOT NULL;
  END;
  CREATE TRIGGER recall_record_rows_plain_delete AFTER DELETE ON recall_record_rows BEGIN
    DELETE FROM recall_plain WHERE id = old.id;
  END;`
  }`;
}

/**
 * One row per record (issue #32's lean store). A transcript's document repeated what its record
 * and conversation held — source, agent, session, conversation, key, time, role, kind, cursor —
 * in a table of its own with seven indexes: at 1M Zipf messages 460 of the index's 1,349 MiB.
 * A prototype of this layout measured 867.5 MiB (docs/benchmarks.md). Now a document is its
 * record's row with the document's own columns filled in; `recall_documents` is a view with the
 * old columns, so readers read as before. A row keeps its document's id, the FTS rowid, which
 * also becomes the record's id; the other records take ids above every id ever used
 * (AUTOINCREMENT, so a rowid is never reused: term statistics rely on it). Indexes the
 * conversation's columns served move to the conversation (session), or to the rows' own
 * conversation indexes (conversation, key).
 */
export const historyV16: Migration<HistorySchemaContext> = {
  version: 16,
  name: "one row per record",
  foreignKeysOff: true,
  up(db) {
    const fts = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'recall_fts'").get() !== undefined;
    const documentsSeq =
      (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'recall_documents'").pluck().get() as
        number | undefined) ?? 0;
    const record = RECORD_COLUMNS.map((c) => `r.${c}`).join(", ");
    const document = DOCUMENT_COLUMNS.map((c) => `d.${c}`).join(", ");
    db.exec(`
      -- A document without a record, or whose record another document already claimed, gets a
      -- conversation to belong to, as records did in schema 14.
      INSERT INTO recall_conversations (id, source, agent, kind, project, session)
        SELECT coalesce(d.conversation, d.source || ':' || d.source_key), min(d.source), min(d.agent), min(d.kind),
          min(d.project), min(d.session)
        FROM recall_documents d
        WHERE coalesce(d.conversation, d.source || ':' || d.source_key) NOT IN (SELECT id FROM recall_conversations)
        GROUP BY 1;
      CREATE TEMP TABLE recall_v16_pairs (document INTEGER PRIMARY KEY, record INTEGER UNIQUE);
      INSERT OR IGNORE INTO recall_v16_pairs (document, record)
        SELECT d.id, r.id FROM recall_documents d
        JOIN recall_conversations c ON c.id = d.conversation
        JOIN recall_record_rows r ON r.id = d.record AND r.conversation_ref = c.ref
        ORDER BY d.id;
      -- A document written without naming its record (none since schema 10) pairs by its key.
      INSERT OR IGNORE INTO recall_v16_pairs (document, record)
        SELECT d.id, r.id FROM recall_documents d
        JOIN recall_conversations c ON c.id = d.conversation
        JOIN recall_record_rows r ON r.conversation_ref = c.ref AND r.record_key = d.source_key
        WHERE d.record IS NULL
        ORDER BY d.id;
      ${ROWS_TABLE.replace("recall_record_rows", "recall_rows_v16")};
      -- Ids start above every document id ever given (a deleted one's too): rowids are never reused.
      INSERT INTO sqlite_sequence (name, seq) VALUES ('recall_rows_v16', ${Math.trunc(documentsSeq)});
      INSERT INTO recall_rows_v16 (id, ${RECORD_COLUMNS.join(", ")}, ${DOCUMENT_COLUMNS.join(", ")})
        SELECT d.id, ${record}, ${document}
        FROM temp.recall_v16_pairs p JOIN recall_documents d ON d.id = p.document
        JOIN recall_record_rows r ON r.id = p.record
        ORDER BY d.id;
      INSERT INTO recall_rows_v16 (id, conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text,
          cursor, ${DOCUMENT_COLUMNS.join(", ")})
        SELECT d.id, c.ref, -d.id,
          CASE WHEN EXISTS (SELECT 1 FROM recall_record_rows o WHERE o.conversation_ref = c.ref AND o.record_key = d.source_key)
            THEN d.source_key || '~' || d.id ELSE d.source_key END,
          d.at, d.role, d.kind, d.own_hit_id, '', d.cursor, ${document}
        FROM recall_documents d
        JOIN recall_conversations c ON c.id = coalesce(d.conversation, d.source || ':' || d.source_key)
        WHERE d.id NOT IN (SELECT document FROM temp.recall_v16_pairs)
        ORDER BY d.id;
      INSERT INTO recall_rows_v16 (${RECORD_COLUMNS.join(", ")})
        SELECT ${record} FROM recall_record_rows r
        WHERE r.id NOT IN (SELECT record FROM temp.recall_v16_pairs)
        ORDER BY r.id;
      DROP TABLE temp.recall_v16_pairs;
      DROP VIEW recall_records;
      DROP TABLE recall_documents;
      DROP TABLE recall_record_rows;
      ALTER TABLE recall_rows_v16 RENAME TO recall_record_rows;
      -- The writers' key, then the read indexes (store/read-indexes.ts, which drops and builds them
      -- again around a first load).
      CREATE UNIQUE INDEX recall_records_key ON recall_record_rows (conversation_ref, record_key);
      CREATE UNIQUE INDEX recall_records_ordinal ON recall_record_rows (conversation_ref, ordinal);
      -- The projection version too: a source's documents are counted in this index alone
      -- (coverage, recall status: 31–36 ms for 345k at 1M demo messages, 160–665 ms without it).
      CREATE INDEX recall_records_time ON recall_record_rows (conversation_ref, at, ordinal, projection_version);
      CREATE INDEX recall_documents_key ON recall_record_rows (record_key) WHERE projection_version IS NOT NULL;
      CREATE INDEX recall_documents_own_hit ON recall_record_rows (own_hit_id) WHERE own_hit_id IS NOT NULL;
      CREATE INDEX recall_documents_at ON recall_record_rows (at);
      CREATE INDEX recall_documents_project ON recall_record_rows (project, at) WHERE project IS NOT NULL;
      CREATE INDEX recall_documents_chat ON recall_record_rows (app_id, chat_id) WHERE app_id IS NOT NULL;
      CREATE INDEX recall_documents_job ON recall_record_rows (job, kind) WHERE job IS NOT NULL;
      ${HISTORY_VIEWS_SQL};
    `);
    // Participants (and the plain engine's folded copy) referenced the documents table.
    rebuildTable(db, "recall_document_participants", (sql) =>
      sql.replace(/REFERENCES "?recall_documents"? \(id\)/, "REFERENCES recall_record_rows (id)"),
    );
    if (!fts)
      rebuildTable(db, "recall_plain", (sql) =>
        sql.replace(/REFERENCES "?recall_documents"? \(id\)/, "REFERENCES recall_record_rows (id)"),
      );
    db.exec(viewTriggersSql(fts));
  },
};
