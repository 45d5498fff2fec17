import type { Db } from "./open.js";
import { statement } from "./statements.js";

/**
 * FTS5 segment merging in bounded steps. By default FTS5 merges segments (automerge) inside the
 * transaction that flushes new terms, and a crisis merge of a whole level can take far longer
 * than the batch that triggered it (143 ms at 1M chat messages). An index using this policy
 * turns automerge off and raises crisismerge, and its indexer calls mergeStep() between
 * batches: each step writes about MERGE_STEP_PAGES pages of merged segments.
 *
 * FTS5 accepts configuration values only as SQL integers (better-sqlite3 binds a JS number as a
 * REAL), so the values are literals.
 */
export const MERGE_STEP_PAGES = 16;
/** Segments on one level before FTS5 merges them regardless (a backstop if steps fall behind). */
export const CRISIS_MERGE = 64;

/** SQL that installs the policy (a migration step: it changes how the index is maintained). */
export const BOUNDED_MERGE_POLICY_SQL = `
  INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 0);
  INSERT INTO recall_fts (recall_fts, rank) VALUES ('crisismerge', ${CRISIS_MERGE});
`;

/**
 * One bounded merge step; true when it merged anything (so another step may be due). Only
 * levels holding at least FTS5's `usermerge` (4) segments are merged, as automerge would.
 */
export function mergeStep(db: Db): boolean {
  const changes = statement(db, "SELECT total_changes()").pluck();
  const start = changes.get() as number;
  statement(db, `INSERT INTO recall_fts (recall_fts, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`).run();
  // The command itself counts as one change; more means segments were written.
  return (changes.get() as number) - start > 1;
}
