import type { Db } from "../store/open.js";
import { BRIDGE_SOURCE } from "../core/kinds.js";
import { pluckedStatement, statement } from "../store/statements.js";

const SESSIONS = `SELECT DISTINCT session FROM recall_session_aliases WHERE alias = ? ORDER BY session`;
/** Bridge peers bound to a CLI session (bindings are the one alias that names a participant). */
const BOUND_PEERS = `SELECT DISTINCT alias FROM recall_session_aliases WHERE session = ? AND source = ? ORDER BY alias`;

/**
 * The session ids an alias names: the alias itself (an exact session id is its own alias)
 * followed by every session learned under it — Claude Code and opencode titles, Codex thread
 * names, a Codex root session id (which also names its spawned subagent threads), an opencode
 * parent session (which names its child sessions), a Claude session id recorded inside a
 * differently named file. The calling session's own records are left out of search by these.
 */
export function sessionsForAlias(db: Db, alias: string): string[] {
  const sessions = (statement(db, SESSIONS).all(alias) as { session: string }[]).map((r) => r.session);
  return [alias, ...sessions.filter((s) => s !== alias)];
}

/**
 * What the `session` filter matches: sessionsForAlias, and for a CLI session id the bridge peers
 * bound to it too, so its messages on the bridge are found with its transcripts (as a peer's
 * identity finds the CLI session it bound). `recall forget --session` removes exactly what it matches.
 */
export function sessionFilter(db: Db, alias: string): string[] {
  const peers = pluckedStatement(db, BOUND_PEERS).all(alias, BRIDGE_SOURCE) as string[];
  return [...new Set([...sessionsForAlias(db, alias), ...peers])];
}
