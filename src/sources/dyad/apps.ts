import { existsSync } from "node:fs";
import { openSourceDatabase } from "../../store/open.js";
import { resolveProject } from "../files/project.js";
import { appProject, type DyadDatabase } from "./source.js";

/**
 * The app a standalone chat tool is bound to: the one (in the first Dyad-shaped database that
 * has one) whose folder resolves to the MCP server's project. search_chats and read_chat then
 * scope every query by this source and app id in SQL, exactly as a host scopes by its app id.
 */
export interface ChatAppBinding {
  /** The source name the app's chats are indexed under (documents.source). */
  source: string;
  /** The Dyad-shaped database holding the app (opened read-only by read_chat). */
  file: string;
  appId: number;
  /** The canonical project both resolve to. */
  project: string;
}

/** The canonical project of a working directory: its git root. */
export function serverProject(cwd: string): string {
  return resolveProject(cwd);
}

/**
 * Looks the project up among the apps of each database, in order; null when no app's folder
 * resolves to it (the chat tools then have nothing to search, and say so).
 */
export function bindChatApp(databases: readonly DyadDatabase[], project: string): ChatAppBinding | null {
  for (const database of databases) {
    if (!existsSync(database.file)) continue;
    let rows: { id: number; path: string | null }[];
    try {
      const db = openSourceDatabase(database.file);
      try {
        rows = db.prepare("SELECT id, path FROM apps ORDER BY id").all() as typeof rows;
      } finally {
        db.close();
      }
    } catch {
      continue;
    }
    for (const row of rows) {
      if (row.path && appProject(row.path, database.appsDir) === project) {
        return { source: database.name, file: database.file, appId: row.id, project };
      }
    }
  }
  return null;
}
