import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTermCorpus, type TermCorpus } from "../../test/helpers/term-corpus.js";
import type { Db } from "../store/open.js";
import { clearTermStats, readTermStatsPlan, storedTermRows } from "../store/term-stats.js";
import { claim, startTermStatsHelper, TermStatsHelper } from "./term-stats-helper.js";
import { createTermStatsJob, nextStretch, runTermStatsJob } from "./term-stats-job.js";

describe("the vocabulary stretch the term statistics job reads a step", () => {
  it("moves towards 10 ms a step, at most doubling and at least quartering, within 16 and 2,000 terms", () => {
    expect(nextStretch(256, 5)).toBe(512); // twice as fast as the target: doubles
    expect(nextStretch(256, 0)).toBe(512); // no time measured: still only doubles
    expect(nextStretch(1_000, 20)).toBe(500);
    expect(nextStretch(2_000, 259)).toBe(500); // a stretch of common terms: a quarter
    expect(nextStretch(2_000, 1)).toBe(2_000);
    expect(nextStretch(16, 1_000)).toBe(16);
  });
});

describe("a shared list's claims", () => {
  it("hands each index to one end only, until the two meet", () => {
    const claims = new Int32Array(new SharedArrayBuffer(4));
    claims[0] = 5; // start 0, end 5
    const taken = [claim(claims, false), claim(claims, true), claim(claims, true), claim(claims, false)];
    expect(taken).toEqual([0, 4, 3, 1]);
    expect(claim(claims, true)).toBe(2);
    expect([claim(claims, false), claim(claims, true)]).toEqual([-1, -1]);
  });
});

describe("`recall index`'s term statistics on two threads", () => {
  let corpus: TermCorpus;
  beforeAll(async () => {
    corpus = await createTermCorpus({ seed: 7, rows: 3000, sessionShare: 0.3, cacheShare: 0.2 });
  });
  afterAll(() => corpus.cleanup());

  const lists = (db: Db) =>
    db
      .prepare(
        "SELECT term, df, through, built_rows, idf, avgdl, complete, ids, impacts FROM recall_term_lists ORDER BY term",
      )
      .all();

  /** Runs a job to its end; returns how many terms the helper's thread computed. */
  async function run(db: Db, withHelper: boolean): Promise<number> {
    const helper = withHelper ? startTermStatsHelper(db) : null;
    if (withHelper) expect(helper).not.toBeNull();
    let answered = 0;
    if (helper) {
      const take = helper.take.bind(helper);
      helper.take = () => {
        const stats = take();
        answered += stats.length;
        return stats;
      };
    }
    await runTermStatsJob(db, helper);
    return answered;
  }

  it("stores what one thread stores, and records the plan as done", async () => {
    const db = corpus.store.db;
    await run(db, false);
    const alone = lists(db);
    expect(alone.length).toBeGreaterThan(20);
    clearTermStats(db);
    expect(readTermStatsPlan(db)).toBeNull();

    expect(await run(db, true)).toBeGreaterThan(0); // the helper's thread computed some of them
    expect(lists(db)).toEqual(alone);
    expect(readTermStatsPlan(db)?.lists).toBe(storedTermRows(db).size);
    // Done: a new job on the same index plans nothing.
    expect(createTermStatsJob(db).step()).toBe(false);
  });

  it("computes every term itself when the helper's thread fails", async () => {
    const db = corpus.store.db;
    const alone = lists(db);
    clearTermStats(db);
    // A thread that takes two terms from the list's end and ends without answering either.
    const thread = `
      import { workerData } from "node:worker_threads";
      workerData.port.on("message", ({ claims }) => {
        const word = new Int32Array(claims);
        const end = Atomics.load(word, 0) & 0xffff;
        Atomics.sub(word, 0, 2);
        if (end < 2) throw new Error("too few terms");
        process.exit(1);
      });`;
    const failing = new TermStatsHelper(
      new URL(`data:text/javascript,${encodeURIComponent(thread)}`),
      db.name,
    );
    await runTermStatsJob(db, failing);
    expect(failing.usable).toBe(false);
    expect(lists(db)).toEqual(alone);
    expect(createTermStatsJob(db).step()).toBe(false);
  });
});
