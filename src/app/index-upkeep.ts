import { ftsLevels, ftsMergePending } from "../store/fts-merge.js";
import { mergeOffThread } from "../store/fts-merge-worker.js";
import type { Db } from "../store/open.js";
import { createTermStatsJob } from "./term-stats-job.js";

/** How long one idle turn may spend on term statistics (each term is one FTS5 pass). */
const TERM_STATS_SLICE_MS = 200;
/**
 * 'merge' transactions one idle turn runs (about 1,000 pages each, 0.1–0.6 s at 1M messages):
 * the indexer's loop awaits the turn, so a new session waits at most about this long.
 */
const MERGE_TRANSACTIONS_PER_TURN = 4;

export interface IndexUpkeep {
  /**
   * One bounded turn of idle work: merging left undone first, then term statistics. True when
   * a merge is still under way (the next turn is due soon).
   */
  turn(): Promise<boolean>;
}

/**
 * The broker's idle work on the index it writes (`file`, through `db`). FTS5 merges run on a
 * worker thread with its own connection (store/fts-merge-worker.ts): one merge command can
 * write a whole common term's rows, 0.6 s at 1M messages, which on this thread would hold up
 * the MCP requests a broker also serves. Nothing else writes meanwhile (the indexer's loop
 * awaits the turn); searches read on. Then the common terms' statistics a fresh process reads.
 */
export function createIndexUpkeep(db: Db, file: string): IndexUpkeep {
  const termStats = createTermStatsJob(db);
  // The structure a merge run could not change: not retried until the index changes.
  let stuck: string | null = null;
  return {
    async turn() {
      if (ftsMergePending(db)) {
        const structure = JSON.stringify(ftsLevels(db));
        if (structure !== stuck) {
          const merged = await mergeOffThread(file, {
            crisisMerge: null,
            maxTransactions: MERGE_TRANSACTIONS_PER_TURN,
          });
          stuck = merged.transactions === 0 ? structure : null;
          return stuck === null && ftsMergePending(db);
        }
      }
      const until = performance.now() + TERM_STATS_SLICE_MS;
      while (performance.now() < until && termStats.step());
      return false;
    },
  };
}

/** Every merge left undone, for a foreground `recall index` before it reports the index ready. */
export async function finishFtsMerges(db: Db, file: string): Promise<void> {
  while (ftsMergePending(db)) {
    const merged = await mergeOffThread(file, { crisisMerge: null });
    if (merged.transactions === 0) return;
  }
}
