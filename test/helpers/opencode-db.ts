import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { UPGRADED_SESSION_MESSAGE, UPGRADED_SESSION_V2, V1_PROJECT } from "../../src/demo/opencode-schema.js";

/**
 * An opencode 2.x database as tests write it: the project table, session_v2 and
 * session_message, with one project row. WAL when asked (opencode's own mode).
 */
export function createOpencodeV2Db(
  file: string,
  options: { project?: { id: string; worktree: string }; wal?: boolean } = {},
): Database.Database {
  const project = options.project ?? { id: "p", worktree: "/x" };
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  if (options.wal) db.pragma("journal_mode = WAL");
  db.exec([V1_PROJECT, UPGRADED_SESSION_V2, UPGRADED_SESSION_MESSAGE].join("\n"));
  db.prepare(
    "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?, ?, 1, 1, '[]')",
  ).run(project.id, project.worktree);
  return db;
}
