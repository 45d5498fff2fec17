import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/** A session written to this recently is `active`: the agent may still be adding to it. */
export const ACTIVE_WINDOW_MS = 10 * 60 * 1000;

/**
 * Which of these conversations have a record newer than `since`: one query for every hit
 * of a response (at most 50 ids), never one per hit.
 */
export function activeConversations(db: Db, ids: readonly string[], since: number): Set<string> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  const rows = statement(
    db,
    `SELECT id FROM recall_conversations WHERE id IN (${unique.map(() => "?").join(", ")}) AND updated_at >= ?`,
  ).all(...unique, since) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}
