import { CARRY_GROWTH } from "../search/term-cache.js";
import {
  commonTerms,
  computeTermStats,
  listWorthy,
  termsToKeep,
  type TermRows,
} from "../search/term-stats.js";
import { ftsTotals } from "../search/fts-index.js";
import { repairFtsTotals } from "../store/fts-totals.js";
import type { Db } from "../store/open.js";
import { readRewrites } from "../store/rewrites.js";
import { storedTermRows, vocabularyAfter, writeTermStats } from "../store/term-stats.js";
import { topRowid } from "../store/top-rowid.js";

/**
 * The broker's idle job that keeps common terms' statistics in the index (schema v3), so a fresh
 * `recall search` or `recall mcp` starts warm. It plans once per CARRY_GROWTH of index growth
 * (rows added, or given new rowids) and again after a rebuild: the common terms of an even
 * sample and the words the index's vocabulary finds in MIN_LIST_ROWS rows or more (read a
 * stretch a step), whose stored statistics are missing or too old; then each step computes and
 * writes one of them (one FTS5 pass over that term). Before planning, it puts back bm25's
 * totals when deletes and rewrites have left them inflated (store/fts-totals.ts).
 */
export interface TermStatsJob {
  /** Does one bounded piece of work (a vocabulary stretch, one term); false when there is nothing to do. */
  step(): boolean;
}

/** Vocabulary terms one step reads while the job plans (a few milliseconds at 1M messages). */
const VOCABULARY_STRETCH = 2_000;

export function createTermStatsJob(db: Db): TermStatsJob {
  let queue: string[] = [];
  let plannedRows = -1;
  let plannedTop = -1;
  let plannedRewrites: string | null = null;
  let repairedAt = "";
  // A plan under way: the vocabulary read so far (one stretch a step) and its frequent words.
  let scan: { after: string; words: TermRows[] } | null = null;
  return {
    step() {
      // A rebuild rewrote documents and dropped every stored term (store/rewrites.ts): plan again.
      const rewrites = readRewrites(db);
      if (rewrites !== plannedRewrites) {
        plannedRewrites = rewrites;
        plannedRows = -1;
        queue = [];
        scan = null;
      }
      if (scan) {
        const stretch = vocabularyAfter(db, scan.after, VOCABULARY_STRETCH);
        scan.words.push(...listWorthy(stretch.terms));
        if (stretch.last !== null) {
          scan.after = stretch.last;
          return true;
        }
        const [rows, top] = [plannedRows, plannedTop];
        const stored = storedTermRows(db);
        queue = termsToKeep(commonTerms(db), scan.words).filter((t) => {
          const built = stored.get(t);
          return (
            built === undefined ||
            rows > built.builtRows * (1 + CARRY_GROWTH / 2) ||
            rows < built.builtRows ||
            top - built.through > built.builtRows * (CARRY_GROWTH / 2)
          );
        });
        scan = null;
        if (queue.length === 0) return false;
      } else if (queue.length === 0) {
        // Counting the docsize rows is a pass over a b-tree: only when the index changed.
        if (ftsTotals(db).generation !== repairedAt) {
          repairFtsTotals(db);
          repairedAt = ftsTotals(db).generation;
        }
        const rows = ftsTotals(db).rows;
        const top = topRowid(db);
        // Rows rewritten under new rowids (indexer/ingest.ts renewText) age statistics as added
        // rows do (search/term-cache.ts usableStored), though the row count stays.
        const unchanged =
          plannedRows >= 0 &&
          rows < plannedRows * (1 + CARRY_GROWTH) &&
          top - plannedTop <= plannedRows * CARRY_GROWTH;
        if (rows === 0 || unchanged) return false;
        plannedRows = rows;
        plannedTop = top;
        scan = { after: "", words: [] };
        return true;
      }
      writeTermStats(db, computeTermStats(db, queue.shift()!));
      return true;
    },
  };
}
