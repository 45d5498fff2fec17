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
import {
  readTermStatsPlan,
  storedTermRows,
  vocabularyAfter,
  writeTermStats,
  writeTermStatsPlan,
} from "../store/term-stats.js";
import { topRowid } from "../store/top-rowid.js";

/**
 * The broker's idle job that keeps common terms' statistics in the index (schema v3), so a fresh
 * `recall search` or `recall mcp` starts warm. It plans once per CARRY_GROWTH of index growth
 * (rows added, or given new rowids) and again after a rebuild: the common terms of an even
 * sample and the words the index's vocabulary finds in MIN_LIST_ROWS rows or more (read a
 * stretch a step), whose stored statistics are missing or too old; then each step computes and
 * writes one of them (one FTS5 pass over that term). Before planning, it puts back bm25's
 * totals when deletes and rewrites have left them inflated (store/fts-totals.ts). A finished
 * plan is recorded in the index, so a new process whose index has not grown plans nothing.
 */
export interface TermStatsJob {
  /** Does one bounded piece of work (a vocabulary stretch, one term); false when there is nothing to do. */
  step(): boolean;
}

/**
 * Vocabulary terms one step reads while the job plans, sized so a step takes about
 * STRETCH_TARGET_MS: FTS5 counts a term's rows by reading its postings, so 2,000 terms took 30
 * ms at most at 1M Zipf messages and 259 ms on the demo corpus, whose vocabulary is small and
 * common. The broker's thread answers the local channel's requests between steps.
 */
const STRETCH = { first: 256, min: 16, max: 2_000 } as const;
const STRETCH_TARGET_MS = 10;

/** The next stretch after one of `terms` took `ms`: towards the target, at most doubling. */
export function nextStretch(terms: number, ms: number): number {
  const factor = Math.min(2, Math.max(0.25, STRETCH_TARGET_MS / Math.max(ms, 0.1)));
  return Math.round(Math.min(STRETCH.max, Math.max(STRETCH.min, terms * factor)));
}

export function createTermStatsJob(db: Db): TermStatsJob {
  let queue: string[] = [];
  let plannedRows = -1;
  let plannedTop = -1;
  let plannedRewrites: string | null = null;
  let repairedAt = "";
  // A plan under way: the vocabulary read so far (one stretch a step) and its frequent words.
  let scan: { after: string; words: TermRows[] } | null = null;
  let stretch: number = STRETCH.first;
  const planDone = () =>
    writeTermStatsPlan(db, { rows: plannedRows, top: plannedTop, rewrites: plannedRewrites });
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
        const started = performance.now();
        const read = vocabularyAfter(db, scan.after, stretch);
        stretch = nextStretch(stretch, performance.now() - started);
        scan.words.push(...listWorthy(read.terms));
        if (read.last !== null) {
          scan.after = read.last;
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
        if (queue.length === 0) {
          planDone();
          return false;
        }
      } else if (queue.length === 0) {
        // Counting the docsize rows is a pass over a b-tree: only when the index changed.
        if (ftsTotals(db).generation !== repairedAt) {
          repairFtsTotals(db);
          repairedAt = ftsTotals(db).generation;
        }
        const rows = ftsTotals(db).rows;
        const top = topRowid(db);
        if (plannedRows < 0) {
          const done = readTermStatsPlan(db);
          if (done && done.rewrites === plannedRewrites) [plannedRows, plannedTop] = [done.rows, done.top];
        }
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
      if (queue.length === 0) planDone();
      return true;
    },
  };
}
