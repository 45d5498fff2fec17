import type { Queryable } from "../team/connect.js";
import { teamError } from "../team/connect.js";

/**
 * What the tools need of the team store: a connection as the member's own PostgreSQL role (so
 * row-level security decides what they read) and its URL for error messages (never printed with
 * its password). Absent when no team store is configured: `scope: "team"` then fails clearly.
 */
export interface TeamAccess {
  db: Queryable;
  url: string;
}

/** Runs a team read; a driver or server error becomes a RecallError naming the store, not the query. */
export async function withTeam<T>(team: TeamAccess, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw teamError(error, team.url);
  }
}
