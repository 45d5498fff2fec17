import type { Migration } from "../migrate.js";
import type { Engine } from "../fts-probe.js";

export interface HistorySchemaContext {
  /** Engine for a new index; recorded in recall_meta and kept for the life of the index. */
  engine: Engine;
  projectionVersion: number;
}

/**
 * The unified index (docs/architecture.md, "The index in brief"): one document per source record, an FTS5
 * external-content index over (title, body) or, without FTS5, a folded plain-text side
 * table; retained conversations and records for bounded reads; raw chunks for export;
 * per-source checkpoints; session aliases; tombstones for deliberate deletion.
 */
export const historyV1: Migration<HistorySchemaContext> = {
  version: 1,
  name: "unified index",
  up(db, { engine, projectionVersion }) {
    db.exec(`
      CREATE TABLE recall_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE recall_documents (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        source_key TEXT NOT NULL,
        hit_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        agent TEXT NOT NULL,
        at INTEGER NOT NULL,
        project TEXT,
        session TEXT,
        job TEXT,
        run TEXT,
        message TEXT,
        conversation TEXT,
        cursor TEXT,
        app_id INTEGER,
        chat_id INTEGER,
        role TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        body TEXT NOT NULL,
        is_compaction_summary INTEGER NOT NULL DEFAULT 0,
        projection_truncated INTEGER NOT NULL DEFAULT 0,
        projection_version INTEGER NOT NULL,
        -- 1 when the writer inserts the FTS row itself (bulk ingest: one FTS5 flush per batch
        -- instead of one per row); the insert trigger then stays out of the way.
        fts_deferred INTEGER NOT NULL DEFAULT 0,
        UNIQUE (source, source_key)
      );
      CREATE UNIQUE INDEX recall_documents_hit ON recall_documents (hit_id);
      CREATE INDEX recall_documents_at ON recall_documents (at);
      CREATE INDEX recall_documents_session ON recall_documents (session);
      CREATE INDEX recall_documents_project ON recall_documents (project, at);
      CREATE INDEX recall_documents_conversation ON recall_documents (conversation);
      CREATE INDEX recall_documents_chat ON recall_documents (app_id, chat_id);

      CREATE TABLE recall_conversations (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        agent TEXT NOT NULL,
        kind TEXT NOT NULL,
        project TEXT,
        session TEXT,
        parent TEXT,
        title TEXT,
        started_at INTEGER,
        updated_at INTEGER,
        next_ordinal INTEGER NOT NULL DEFAULT 0,
        model TEXT,
        branch TEXT
      );
      CREATE INDEX recall_conversations_session ON recall_conversations (session);
      CREATE INDEX recall_conversations_project ON recall_conversations (project);

      CREATE TABLE recall_records (
        id INTEGER PRIMARY KEY,
        conversation TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        record_key TEXT NOT NULL,
        at INTEGER NOT NULL,
        role TEXT NOT NULL,
        kind TEXT NOT NULL,
        hit_id TEXT,
        text TEXT NOT NULL,
        truncated INTEGER NOT NULL DEFAULT 0,
        cursor TEXT,
        model TEXT,
        branch TEXT,
        UNIQUE (conversation, ordinal),
        UNIQUE (conversation, record_key)
      );
      CREATE INDEX recall_records_time ON recall_records (conversation, at, ordinal);

      -- Exact bytes read from sources, deflate-compressed (stored = compressed size). A replaced
      -- file starts a new epoch; first_at/last_at are the times of the records whose lines
      -- start in the chunk (recall forget --since/--until finds chunks by them).
      CREATE TABLE recall_raw_chunks (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        file TEXT NOT NULL,
        conversation TEXT,
        offset INTEGER NOT NULL,
        length INTEGER NOT NULL,
        captured_at INTEGER NOT NULL,
        data BLOB NOT NULL,
        epoch INTEGER NOT NULL DEFAULT 0,
        first_at INTEGER,
        last_at INTEGER,
        stored INTEGER NOT NULL DEFAULT 0,
        -- 'byte': offset is a byte offset in the file; 'row': a database row (offset = its update time)
        unit TEXT NOT NULL DEFAULT 'byte'
      );
      CREATE INDEX recall_raw_chunks_file ON recall_raw_chunks (source, file, epoch, offset);
      CREATE INDEX recall_raw_chunks_source ON recall_raw_chunks (source, id);
      CREATE INDEX recall_raw_chunks_conversation ON recall_raw_chunks (conversation);
      CREATE INDEX recall_raw_chunks_time ON recall_raw_chunks (first_at);

      CREATE TABLE recall_checkpoints (
        source TEXT NOT NULL,
        key TEXT NOT NULL,
        offset INTEGER NOT NULL DEFAULT 0,
        size INTEGER,
        mtime INTEGER,
        head_hash TEXT,
        state TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (source, key)
      );

      CREATE TABLE recall_session_aliases (
        alias TEXT NOT NULL,
        session TEXT NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (alias, session)
      );
      CREATE INDEX recall_session_aliases_session ON recall_session_aliases (session);

      CREATE TABLE recall_tombstones (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        value TEXT,
        since INTEGER,
        until INTEGER,
        created_at INTEGER NOT NULL
      );

      -- Per-source counters and the last published coverage of each source.
      CREATE TABLE recall_source_stats (
        source TEXT PRIMARY KEY,
        oversized INTEGER NOT NULL DEFAULT 0,
        malformed INTEGER NOT NULL DEFAULT 0,
        skipped INTEGER NOT NULL DEFAULT 0,
        raw_chunks INTEGER NOT NULL DEFAULT 0,
        raw_bytes INTEGER NOT NULL DEFAULT 0,
        raw_stored INTEGER NOT NULL DEFAULT 0,
        pruned_chunks INTEGER NOT NULL DEFAULT 0,
        pruned_bytes INTEGER NOT NULL DEFAULT 0,
        files_known INTEGER,
        backlog_files INTEGER,
        backlog_bytes INTEGER,
        discovered INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER
      );
    `);
    db.exec(engine === "fts5" ? FTS5_INDEX : PLAIN_INDEX);
    const meta = db.prepare("INSERT INTO recall_meta (key, value) VALUES (?, ?)");
    meta.run("engine", engine);
    meta.run("projection_version", String(projectionVersion));
  },
};

/**
 * bm25 over (title, body); the document table is the external content, so text is stored once.
 * A statement that fires a trigger opens a statement savepoint, and FTS5 flushes its pending
 * terms at every savepoint: a row-by-row trigger therefore writes one tiny segment per row. Bulk
 * writers set fts_deferred = 1 and insert their FTS rows themselves after the batch's other
 * writes (see indexer/ingest.ts); the update and delete triggers keep every writer in sync.
 */
const FTS5_INDEX = `
  CREATE VIRTUAL TABLE recall_fts USING fts5(
    title, body,
    content = 'recall_documents', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER recall_documents_fts_insert AFTER INSERT ON recall_documents WHEN new.fts_deferred = 0 BEGIN
    INSERT INTO recall_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
  END;
  CREATE TRIGGER recall_documents_fts_delete AFTER DELETE ON recall_documents BEGIN
    INSERT INTO recall_fts (recall_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
  END;
  CREATE TRIGGER recall_documents_fts_update AFTER UPDATE OF title, body ON recall_documents BEGIN
    INSERT INTO recall_fts (recall_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO recall_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
  END;
`;

/** Folded text for literal substring matching; recall_fold() is registered on every connection recall opens. */
const PLAIN_INDEX = `
  CREATE TABLE recall_plain (
    id INTEGER PRIMARY KEY REFERENCES recall_documents (id) ON DELETE CASCADE,
    folded TEXT NOT NULL
  );
  CREATE TRIGGER recall_documents_plain_insert AFTER INSERT ON recall_documents BEGIN
    INSERT INTO recall_plain (id, folded) VALUES (new.id, recall_fold(new.title || char(10) || new.body));
  END;
  CREATE TRIGGER recall_documents_plain_update AFTER UPDATE OF title, body ON recall_documents BEGIN
    UPDATE recall_plain SET folded = recall_fold(new.title || char(10) || new.body) WHERE id = new.id;
  END;
`;
