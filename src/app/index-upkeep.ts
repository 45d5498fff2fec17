import { ftsLevels, ftsMergePending, ftsRewriteDue } from "../store/fts-merge.js";
import { mergeOffThread } from "../store/fts-merge-worker.js";
import type { Db } from "../store/open.js";
import { createTermStatsJob } from "./term-stats-job.js";

/** How long one idle turn may spend on term statistics (each term is one FTS5 pass). */
const TERM_STATS_SLICE_MS = 200;
/**
 * How long one idle turn's merging may run before it stops starting transactions: the
 * indexer's loop awaits the turn, so a new session waits at most about this long (plus one
 * transaction).
 */
const MERGE_TURN_MS = 500;
/** Pages one 'merge' transaction writes: at 1M messages, 63 ms at most (1,000 pages: 127 ms). */
const MERGE_PAGES = 200;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface IndexUpkeep {
  /**
   * One bounded turn of idle work: the FTS5 work due first, then term statistics. True when
   * FTS5 work is still due (the next turn should come soon).
   */
  turn(): Promise<boolean>;
}

/** The FTS5 work due, if any: a merge under way or due, or a rewrite that drops tombstones. */
function ftsWorkDue(db: Db): "merge" | "rewrite" | null {
  if (ftsMergePending(db)) return "merge";
  return ftsRewriteDue(db) ? "rewrite" : null;
}

/** One run of FTS5 work on a worker thread; false when it could change nothing. */
async function runFtsWork(file: string, work: "merge" | "rewrite", maxMs?: number): Promise<boolean> {
  const run = await mergeOffThread(file, {
    crisisMerge: null,
    pages: MERGE_PAGES,
    rewrite: work === "rewrite",
    maxMs,
  });
  return run.transactions > 0;
}

/**
 * The broker's idle work on the index it writes (`file`, through `db`). FTS5 work runs on a
 * worker thread with its own connection (store/fts-merge-worker.ts): one merge command can
 * write a whole common term's rows, 0.6 s at 1M messages, which on this thread would hold up
 * the MCP requests a broker also serves. Nothing else writes meanwhile (the indexer's loop
 * awaits the turn); searches read on. The work: merges FTS5's automerge left under way (it
 * advances a merge only by what each write adds), and a rewrite of the index once deleted rows'
 * tombstones slow every read (store/fts-merge.ts tombstoneProbes). Then the common terms'
 * statistics a fresh process reads.
 */
export function createIndexUpkeep(db: Db, file: string): IndexUpkeep {
  const termStats = createTermStatsJob(db);
  // The structure a run could not change: not retried until the index changes.
  let stuck: string | null = null;
  return {
    async turn() {
      const work = ftsWorkDue(db);
      if (work) {
        const structure = `${work} ${JSON.stringify(ftsLevels(db))}`;
        if (structure !== stuck) {
          const changed = await runFtsWork(file, work, MERGE_TURN_MS);
          stuck = changed ? null : structure;
          return changed && ftsWorkDue(db) !== null;
        }
      }
      // Each step is one term's FTS5 pass (up to about 160 ms at 1M messages for the commonest):
      // between steps the event loop takes the MCP requests a broker also serves.
      const until = performance.now() + TERM_STATS_SLICE_MS;
      while (performance.now() < until && termStats.step()) await yieldToRequests();
      return false;
    },
  };
}

/** Runs a foreground finish may take: a merge, then a rewrite, then a merge the rewrite left. */
const FINISH_RUNS = 4;

/** All FTS5 work due, for a foreground `recall index` before it reports the index ready. */
export async function finishFtsWork(db: Db, file: string): Promise<void> {
  for (let run = 0; run < FINISH_RUNS; run++) {
    const work = ftsWorkDue(db);
    if (!work || !(await runFtsWork(file, work))) return;
  }
}
