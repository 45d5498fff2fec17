import path from "node:path";

/**
 * The agent-bridge store (docs/bridge-store.md): recall defines it, the writer in this folder
 * creates it, and the bridge source only ever reads it. Files under the bridge root:
 * bridge.db (live records), archive.db (cold messages), runs/ and runs/archive/ (run logs).
 */
export const BRIDGE_DB = "bridge.db";
export const ARCHIVE_DB = "archive.db";
export const RUNS_DIR = "runs";
export const RUNS_ARCHIVE_DIR = "archive";

/** PRAGMA user_version of a bridge.db / archive.db this code created. */
export const BRIDGE_SCHEMA_VERSION = 1;

export interface BridgePaths {
  root: string;
  db: string;
  archive: string;
  runs: string;
  runsArchive: string;
}

export function bridgePaths(root: string): BridgePaths {
  const runs = path.join(root, RUNS_DIR);
  return {
    root,
    db: path.join(root, BRIDGE_DB),
    archive: path.join(root, ARCHIVE_DB),
    runs,
    runsArchive: path.join(runs, RUNS_ARCHIVE_DIR),
  };
}

/** The message columns shared by the live table, the insert queue and the cold archive. */
const MESSAGE_COLUMNS = `
  id TEXT NOT NULL,
  sender TEXT NOT NULL,
  recipients TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  conversation TEXT,
  project TEXT,
  job TEXT,
  created_at INTEGER NOT NULL`;

/**
 * bridge.db. `messages` is the live table: its INTEGER PRIMARY KEY has no AUTOINCREMENT, so
 * SQLite reuses the rowid of a row archived or deleted at the end of the table. The derived
 * insert queue `message_inserts` copies every new message in a trigger of the same
 * transaction; its AUTOINCREMENT seq is never reused, so a reader following seq sees every
 * message exactly once whatever happened to the live row since.
 */
export const BRIDGE_DDL = `
  CREATE TABLE IF NOT EXISTS messages (
    row_id INTEGER PRIMARY KEY,${MESSAGE_COLUMNS},
    UNIQUE (id)
  );
  CREATE TABLE IF NOT EXISTS message_inserts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_rowid INTEGER NOT NULL,${MESSAGE_COLUMNS}
  );
  CREATE TRIGGER IF NOT EXISTS messages_capture AFTER INSERT ON messages BEGIN
    INSERT INTO message_inserts (message_rowid, id, sender, recipients, kind, body, conversation, project, job,
      created_at)
    VALUES (new.row_id, new.id, new.sender, new.recipients, new.kind, new.body, new.conversation, new.project,
      new.job, new.created_at);
  END;
  CREATE TABLE IF NOT EXISTS questions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    asker TEXT NOT NULL,
    question TEXT NOT NULL,
    conversation TEXT,
    project TEXT,
    job TEXT,
    asked_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS answers (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    question_id TEXT NOT NULL UNIQUE REFERENCES questions (id),
    answer TEXT NOT NULL,
    answered_by TEXT NOT NULL,
    answered_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    rev INTEGER NOT NULL,
    decision TEXT NOT NULL,
    rationale TEXT,
    decided_by TEXT NOT NULL,
    project TEXT,
    job TEXT,
    decided_at INTEGER NOT NULL,
    UNIQUE (topic, rev)
  );
  CREATE TABLE IF NOT EXISTS bindings (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    peer TEXT NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    project TEXT,
    bound_at INTEGER NOT NULL,
    UNIQUE (peer, session)
  );
`;

/** archive.db: cold messages, moved out of bridge.db's live table; seq never reused. */
export const ARCHIVE_DDL = `
  CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,${MESSAGE_COLUMNS},
    archived_at INTEGER NOT NULL,
    UNIQUE (id)
  );
`;
