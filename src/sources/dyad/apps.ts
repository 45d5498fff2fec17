import { existsSync } from "node:fs";
import path from "node:path";
import { openSourceDatabase } from "../../store/open.js";
import { resolveProject } from "../../platform/project.js";
import { appFolder, type DyadDatabase } from "./source.js";

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
 * The app of the server's working directory: among the apps (of every database, in order) whose
 * folder resolves to the cwd's project, the one whose own folder holds the cwd, nearest first.
 * When only one app resolves to the project it is bound even from elsewhere in the project (a
 * repository whose subfolder is the app). Null when none does, or when several do and none
 * holds the cwd: app folders without a .git of their own inside one repository (a home kept
 * under git) all resolve to that repository, and guessing would open another app's chats.
 */
export function bindChatApp(databases: readonly DyadDatabase[], cwd: string): ChatAppBinding | null {
  const project = serverProject(cwd);
  const here = path.resolve(cwd);
  const candidates: { binding: ChatAppBinding; folder: string }[] = [];
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
      if (!row.path) continue;
      const folder = appFolder(row.path, database.appsDir);
      if (resolveProject(folder) !== project) continue;
      candidates.push({
        binding: { source: database.name, file: database.file, appId: row.id, project },
        folder,
      });
    }
  }
  if (candidates.length <= 1) return candidates[0]?.binding ?? null;
  const holding = candidates.filter((c) => here === c.folder || here.startsWith(c.folder + path.sep));
  // The nearest folder wins; the same folder in two databases is one app, the first database's.
  const nearest = holding.reduce<(typeof holding)[number] | null>(
    (best, c) => (best === null || c.folder.length > best.folder.length ? c : best),
    null,
  );
  return nearest?.binding ?? null;
}
