import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTermCorpus,
  SESSION_LIST,
  SESSION_OR_CACHE,
  type TermCorpus,
} from "../../test/helpers/term-corpus.js";
import { createTermStatsJob } from "../app/term-stats-job.js";
import type { HistoryStore } from "../store/history-store.js";
import { openDatabase, type Db } from "../store/open.js";
import { storedTermRows, vocabularyAfter } from "../store/term-stats.js";
import { plannerTuning, rankDocuments, rankExact } from "./planner.js";
import { CARRY_GROWTH, clearTermCache, termCache } from "./term-cache.js";
import { listWorthy, MAX_VOCABULARY_TERMS, MIN_LIST_ROWS, termsToKeep } from "./term-stats.js";

let corpus: TermCorpus;
let store: HistoryStore;
const append = (bodies: string[]) => corpus.append(bodies);
const randomBody = () => corpus.randomBody();

beforeAll(async () => {
  corpus = await createTermCorpus({ seed: 99, rows: 2000, sessionShare: 0.3, cacheShare: 0.2 });
  store = corpus.store;
});

afterAll(() => corpus.cleanup());

afterEach(() => {
  for (const k of Object.keys(plannerTuning) as (keyof typeof plannerTuning)[]) delete plannerTuning[k];
});

const request = SESSION_OR_CACHE;

/** A new read-only connection: a fresh process's view of the index. */
function fresh(): Db {
  return openDatabase(store.file, { readonly: true });
}

describe("persisted term statistics (the broker's idle job)", () => {
  it("stores the common terms once, and a fresh process ranks with them without building lists", () => {
    const job = createTermStatsJob(store.db);
    let steps = 0;
    while (job.step()) steps++;
    expect(steps).toBeGreaterThan(0);
    expect([...storedTermRows(store.db).keys()]).toEqual(expect.arrayContaining(["session", "cache"]));
    expect(job.step()).toBe(false); // nothing new until the index grows

    plannerTuning.exactMaxRows = 10;
    const reader = fresh();
    try {
      const ranked = rankDocuments(reader, request);
      expect(ranked.plan).toBe("impact");
      const cache = termCache(reader);
      expect(cache.lists.get(SESSION_LIST)!.buildMs).toBe(0); // loaded, not built
      expect(cache.carried).toBe(false); // built on exactly this index
      expect(ranked.exact).toBe(true);
      expect(ranked.rows.map((r) => r.id)).toEqual(rankExact(reader, request).map((r) => r.id));
    } finally {
      clearTermCache(reader);
      reader.close();
    }
  });

  it("carries stored statistics over later growth, scoring the newer rows", () => {
    const best = append([...Array.from({ length: 20 }, randomBody), "session cache session cache cache"]);
    plannerTuning.exactMaxRows = 10;
    const reader = fresh();
    try {
      const ranked = rankDocuments(reader, request);
      const cache = termCache(reader);
      expect(cache.lists.get(SESSION_LIST)!.buildMs).toBe(0);
      expect(cache.carried).toBe(true);
      expect(ranked.rows.map((r) => r.id)).toEqual(rankExact(reader, request).map((r) => r.id));
      expect(ranked.rows[0]!.id).toBe(best);
    } finally {
      clearTermCache(reader);
      reader.close();
    }
  });

  it("leaves stored statistics aside once CARRY_GROWTH of rows got new rowids, though no rows were added", () => {
    const job = createTermStatsJob(store.db);
    while (job.step());
    plannerTuning.exactMaxRows = 10;
    const loads = (): boolean => {
      const reader = fresh();
      try {
        rankDocuments(reader, request);
        return termCache(reader).lists.get(SESSION_LIST)!.buildMs === 0;
      } finally {
        clearTermCache(reader);
        reader.close();
      }
    };
    expect(loads()).toBe(true);
    const renew = store.db.prepare(
      `UPDATE recall_documents SET body = body || ' again', id = (SELECT max(id) + 1 FROM recall_documents)
       WHERE id = (SELECT min(id) FROM recall_documents)`,
    );
    for (let i = 0; i < 2100 * CARRY_GROWTH; i++) renew.run();
    expect(loads()).toBe(false); // built, not loaded
    while (job.step()); // the broker's idle job builds them again
    expect(loads()).toBe(true);
  });

  it("records each finished plan in the index: a new process's job plans only once the index changed", () => {
    const finish = (job: ReturnType<typeof createTermStatsJob>) => {
      while (job.step());
    };
    finish(createTermStatsJob(store.db));
    expect(createTermStatsJob(store.db).step()).toBe(false); // nothing to plan, no vocabulary read
    const renew = store.db.prepare(
      `UPDATE recall_documents SET id = (SELECT max(id) + 1 FROM recall_documents)
       WHERE id = (SELECT min(id) FROM recall_documents)`,
    );
    const rows = (store.db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n;
    for (let i = 0; i <= rows * CARRY_GROWTH; i++) renew.run();
    const after = createTermStatsJob(store.db);
    expect(after.step()).toBe(true); // rows moved past the recorded plan: it plans again
    finish(after);
    expect(createTermStatsJob(store.db).step()).toBe(false);
    // The stored lists gone without a rewrite noted (a damaged or emptied table): the record no longer holds.
    store.db.prepare("DELETE FROM recall_term_lists").run();
    const rebuilt = createTermStatsJob(store.db);
    expect(rebuilt.step()).toBe(true);
    finish(rebuilt);
    expect(storedTermRows(store.db).size).toBeGreaterThan(0);
  });
});

describe("the words the job finds in the index's vocabulary", () => {
  it("reads the vocabulary in stretches, each term once, with FTS5's row counts", () => {
    const whole = vocabularyAfter(store.db, "", 1_000_000);
    expect(whole.last).toBeNull();
    const stretched: { term: string; rows: number }[] = [];
    for (let after = ""; ;) {
      const stretch = vocabularyAfter(store.db, after, 7);
      stretched.push(...stretch.terms);
      if (stretch.last === null) break;
      after = stretch.last;
    }
    expect(stretched).toEqual(whole.terms);
    const count = store.db.prepare("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH ?").pluck();
    for (const { term, rows } of whole.terms.filter((t) => /^[a-z]+$/.test(t.term)).slice(0, 5))
      expect(rows).toBe(count.get(term));
  });

  it("keeps plain words in MIN_LIST_ROWS rows or more, after the sample's terms, most frequent first", () => {
    const vocabulary = [
      { term: "retry", rows: MIN_LIST_ROWS },
      { term: "webhook", rows: MIN_LIST_ROWS * 3 },
      { term: "rare", rows: MIN_LIST_ROWS - 1 },
      { term: "東京", rows: MIN_LIST_ROWS * 9 },
      { term: "session", rows: MIN_LIST_ROWS * 20 },
    ];
    const worthy = listWorthy(vocabulary);
    expect(worthy.map((t) => t.term)).toEqual(["retry", "webhook", "session"]);
    expect(termsToKeep(["session", "sess*"], worthy)).toEqual(["session", "sess*", "webhook", "retry"]);
    const many = Array.from({ length: MAX_VOCABULARY_TERMS + 5 }, (_, i) => ({
      term: `w${i}`,
      rows: 1_000 + i,
    }));
    const kept = termsToKeep([], many);
    expect(kept).toHaveLength(MAX_VOCABULARY_TERMS);
    expect(kept[0]).toBe(`w${MAX_VOCABULARY_TERMS + 4}`);
  });
});
