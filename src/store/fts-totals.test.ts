import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createTermCorpus, type TermCorpus } from "../../test/helpers/term-corpus.js";
import { createTermStatsJob } from "../app/term-stats-job.js";
import { ftsTotals } from "../search/fts-index.js";
import { readVarint, repairFtsTotals, writeVarint } from "./fts-totals.js";
import type { Db } from "./open.js";

const corpora: TermCorpus[] = [];
afterEach(() => {
  for (const c of corpora.splice(0)) c.cleanup();
});

const corpus = async (rows: number) => {
  const c = await createTermCorpus({ seed: 7, rows, sessionShare: 0.3, cacheShare: 0.2 });
  corpora.push(c);
  return c;
};

/** bm25 of every row matching "session", as FTS5 computes it from its totals. */
const scores = (db: Db) =>
  db
    .prepare(
      "SELECT rowid, bm25(recall_fts) AS score FROM recall_fts WHERE recall_fts MATCH 'session' ORDER BY rowid",
    )
    .all() as { rowid: number; score: number }[];

const documents = (db: Db) =>
  (db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n;

describe("bm25's totals after deletes (contentless-delete FTS5 never lowers them)", () => {
  it("are put back by the term statistics job, so scores equal an index that never held the deleted rows", async () => {
    const rewritten = await corpus(2000);
    const never = await corpus(1000); // the same seed: the same first 1000 rows, same rowids
    rewritten.store.db.prepare("DELETE FROM recall_documents WHERE id > 1000").run();
    expect(documents(rewritten.store.db)).toBe(1000);

    // The drift is real: N still counts the deleted rows and every score differs.
    expect(ftsTotals(rewritten.store.db).rows).toBe(2000);
    const truth = scores(never.store.db);
    expect(truth.length).toBeGreaterThan(100);
    expect(scores(rewritten.store.db)[0]!.score).not.toBeCloseTo(truth[0]!.score, 6);

    const job = createTermStatsJob(rewritten.store.db);
    while (job.step());
    expect(ftsTotals(rewritten.store.db)).toMatchObject({
      rows: 1000,
      tokens: ftsTotals(never.store.db).tokens,
    });
    const repaired = scores(rewritten.store.db);
    expect(repaired.map((r) => r.rowid)).toEqual(truth.map((r) => r.rowid));
    repaired.forEach((r, i) => expect(r.score).toBeCloseTo(truth[i]!.score, 9));

    // Later writes count from the repaired totals.
    rewritten.append(["session one more"]);
    expect(ftsTotals(rewritten.store.db).rows).toBe(1001);
  });

  it("leaves totals that are right alone, and corrects a small index off by one row", async () => {
    const c = await corpus(300);
    expect(repairFtsTotals(c.store.db)).toBeNull();
    c.store.db.prepare("DELETE FROM recall_documents WHERE id = 1").run();
    expect(repairFtsTotals(c.store.db)).toEqual({ rowsBefore: 300, rows: 299 });
    expect(repairFtsTotals(c.store.db)).toBeNull();
  });

  it("reads back every varint it writes", () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(300), fc.maxSafeNat()), (n) => {
        const bytes = Uint8Array.from(writeVarint(n));
        expect(readVarint(bytes, 0)).toEqual({ value: n, next: bytes.length });
      }),
    );
  });
});
