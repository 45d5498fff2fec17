/**
 * A toy agent that keeps its sessions in a SQLite database in WAL mode (as Copilot, Cline and
 * Kilo do): `<HOME>/.toysql/store.db` with `sessions(id, title, updated_at)` and
 * `messages(id, session_id, role, text, at, updated_at)`. One definition over the session
 * database base.
 */
import Database from "better-sqlite3";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Env } from "../../src/platform/paths.js";
import { defineSource, readable } from "../../src/sources/definition.js";
import {
  SessionDatabaseSource,
  type ChangedRow,
  type RowCursor,
} from "../../src/sources/databases/session-database-source.js";
import { conversationId, transcriptHitId } from "../../src/sources/ids.js";
import type { Db } from "../../src/store/open.js";

const AGENT = "toysql";
export const toySqlFile = (env: Env) => path.join(env.HOME ?? "/", ".toysql", "store.db");

interface SessionRow extends ChangedRow {
  title: string | null;
}
interface MessageRow extends ChangedRow {
  session_id: string;
  role: string;
  text: string;
  at: number;
}

// A session changes when it or one of its messages does.
const SESSIONS = `SELECT s.id, s.title, max(s.updated_at, coalesce((SELECT max(m.updated_at) FROM messages m WHERE m.session_id = s.id), 0)) AS updatedAt
  FROM sessions s WHERE (updatedAt, s.id) > (?, ?) ORDER BY updatedAt, s.id LIMIT ?`;
const MESSAGES = `SELECT id, session_id, role, text, at, updated_at AS updatedAt FROM messages
  WHERE session_id = ? AND (updated_at, id) > (?, ?) ORDER BY updated_at, id LIMIT ?`;
const after = (c: RowCursor) => [c.t === -Infinity ? -1 : c.t, c.id];

export const toySql = readable(
  defineSource({
    name: AGENT,
    agent: AGENT,
    filter: { own: true },
    displayName: "Toy SQL",
    conversationId: "toysql:<session>",
    env: ["HOME"],
    roots: (env) => [path.dirname(toySqlFile(env))],
    lookedIn: (env) => [toySqlFile(env)],
    hasHistory: (env) => existsSync(toySqlFile(env)),
    config: { toysql: z.boolean().default(true) },
    limits: ["maxSessionRows"],
  }),
  ({ env, settings, maxLineBytes }) =>
    settings.toysql
      ? [
          new SessionDatabaseSource<SessionRow, MessageRow>({
            name: AGENT,
            agent: AGENT,
            files: () => [toySqlFile(env)],
            recognise: (db: Db) =>
              db
                .prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('sessions', 'messages')")
                .pluck()
                .get() === 2,
            changedSessions: (db, cursor, limit) =>
              db.prepare(SESSIONS).all(...after(cursor), limit) as SessionRow[],
            changedMessages: (db, session, cursor, limit) =>
              db.prepare(MESSAGES).all(session, ...after(cursor), limit) as MessageRow[],
            conversation: (row) => ({
              id: conversationId(AGENT, row.id),
              source: AGENT,
              agent: AGENT,
              kind: "transcript",
              project: null,
              session: row.id,
              parent: null,
              title: row.title,
            }),
            records: (m, conversation) => {
              const role = m.role === "assistant" ? "assistant" : "user";
              return [
                {
                  sourceKey: m.id,
                  hitId: transcriptHitId(AGENT, m.session_id, m.id),
                  conversation,
                  at: m.at,
                  role,
                  kind: "transcript",
                  content: {
                    type: "turn",
                    turn: { role, blocks: [{ type: "text", text: m.text }], isCompactionSummary: false },
                  },
                  cursor: m.id,
                  message: null,
                  job: null,
                  run: null,
                },
              ];
            },
            ...(maxLineBytes !== undefined ? { maxRowBytes: maxLineBytes } : {}),
          }),
        ]
      : [],
);

/** Opens (creating) the toy database in WAL mode, as the CLI would. */
export function openToySql(env: Env): Database.Database {
  mkdirSync(path.dirname(toySqlFile(env)), { recursive: true });
  const db = new Database(toySqlFile(env));
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT, updated_at INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
      text TEXT NOT NULL, at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
  return db;
}
