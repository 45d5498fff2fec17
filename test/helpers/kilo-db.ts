/**
 * A small kilo.db in Kilo Code CLI 7.x's layout (opencode 1.x tables: session, message, part,
 * each row's payload JSON in `data`), in WAL mode as Kilo keeps it. Only the columns recall reads
 * plus the NOT NULL ones Kilo declares.
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";

export function openKiloDb(file: string): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
      slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, model TEXT,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`);
  return db;
}

export function kiloSession(
  db: Database.Database,
  id: string,
  at: number,
  directory = "/nonexistent/kilo",
): void {
  db.prepare(
    `INSERT INTO session (id, project_id, slug, directory, title, version, model, time_created, time_updated)
     VALUES (?, 'p1', 'calm-otter', ?, ?, '7.7.7', '{"id":"mock-model","providerID":"mock"}', ?, ?)`,
  ).run(id, directory, `New session - ${new Date(at).toISOString()}`, at, at);
}

/** One message with one text part. */
export function kiloText(
  db: Database.Database,
  session: string,
  id: string,
  role: "user" | "assistant",
  text: string,
  at: number,
): void {
  db.prepare(
    "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
  ).run(id, session, at, at, JSON.stringify({ role, time: { created: at } }));
  db.prepare(
    "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(`prt_${id}`, id, session, at, at, JSON.stringify({ type: "text", text }));
}
