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
import { startTermStatsHelper, type TermStatsHelper } from "./term-stats-helper.js";

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
  /** With a helper: when every term left is on its thread, a wait for its next answer (else null). */
  waiting(): Promise<void> | null;
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

/**
 * `helper`: a thread computing terms beside this one's (`recall index`, term-stats-helper.ts);
 * the broker's idle job has none, its steps bounded by one term each.
 */
export function createTermStatsJob(db: Db, helper?: TermStatsHelper): TermStatsJob {
  let queue: string[] = [];
  let plannedRows = -1;
  let plannedTop = -1;
  let plannedRewrites: string | null = null;
  let repairedAt = "";
  // A plan under way: the vocabulary read so far (one stretch a step) and its frequent words.
  let scan: { after: string; words: TermRows[] } | null = null;
  let stretch: number = STRETCH.first;
  /** The plan's terms were handed to the helper's shared list (term-stats-helper.ts). */
  let shared = false;
  const planDone = () => {
    shared = false;
    writeTermStatsPlan(db, { rows: plannedRows, top: plannedTop, rewrites: plannedRewrites });
  };
  /** The plan's terms all computed: none queued here, none left on the helper's list. */
  const computed = () => queue.length === 0 && (!shared || helper!.finished);
  /** The helper's answers written; terms it failed on queued here. */
  const helperAnswers = (): void => {
    if (!helper) return;
    for (const stats of helper.take()) writeTermStats(db, stats);
    queue.unshift(...helper.failed());
  };
  /** With the plan's terms shared: its answers written, and true when they were the plan's last. */
  const helperEndedPlan = (): boolean => {
    helperAnswers();
    if (!computed()) return false;
    planDone();
    return true;
  };
  /** One term computed here (the plan's terms shared with the helper first, when there is one). */
  const computeNext = (): void => {
    if (helper?.usable && !shared && queue.length > 1) {
      queue = helper.share(queue);
      shared = true;
    }
    const term = (shared ? helper!.claim() : null) ?? queue.shift();
    if (term !== undefined) writeTermStats(db, computeTermStats(db, term));
    helperAnswers();
    if (computed()) planDone();
  };
  return {
    step() {
      // A rebuild rewrote documents and dropped every stored term (store/rewrites.ts): plan again.
      const rewrites = readRewrites(db);
      if (rewrites !== plannedRewrites) {
        plannedRewrites = rewrites;
        plannedRows = -1;
        queue = [];
        scan = null;
        shared = false; // what the helper still answers is written as it comes: correct, if unplanned
      }
      if (shared && helperEndedPlan()) return true;
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
      } else if (queue.length === 0 && !shared) {
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
      computeNext();
      return true;
    },
    waiting() {
      return shared && queue.length === 0 && helper!.claimed && !helper!.finished ? helper!.answered() : null;
    },
  };
}

/**
 * Runs the job to its end, as `recall index` does before it reports (the broker's idle job steps
 * it instead): on two threads, with `helper` (by default one where there are two cores), closed
 * at the end.
 */
export async function runTermStatsJob(
  db: Db,
  helper: TermStatsHelper | null = startTermStatsHelper(db),
): Promise<void> {
  try {
    const job = createTermStatsJob(db, helper ?? undefined);
    while (job.step()) await (job.waiting() ?? new Promise<void>((resolve) => setImmediate(resolve)));
  } finally {
    await helper?.close();
  }
}
