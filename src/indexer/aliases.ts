import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

const SESSIONS = `SELECT DISTINCT session FROM recall_session_aliases WHERE alias = ? ORDER BY session`;

/**
 * The session ids an alias names, for the `session` filter: the alias itself (an exact
 * session id is its own alias) followed by every session learned under it — Claude Code and
 * opencode titles, Codex thread names, a Codex root session id (which also names its spawned
 * subagent threads), an opencode parent session (which names its child sessions), a Claude
 * session id recorded inside a differently named file.
 */
export function sessionsForAlias(db: Db, alias: string): string[] {
  const sessions = (statement(db, SESSIONS).all(alias) as { session: string }[]).map((r) => r.session);
  return [alias, ...sessions.filter((s) => s !== alias)];
}
