import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createTermCorpus,
  SESSION_LIST,
  SESSION_OR_CACHE,
  type TermCorpus,
} from "../../test/helpers/term-corpus.js";
import type { HistoryStore } from "../store/history-store.js";
import { plannerTuning, rankDocuments, rankExact } from "./planner.js";
import { CARRY_GROWTH, clearTermCache, documentFrequency, termCache } from "./term-cache.js";

let corpus: TermCorpus;
let store: HistoryStore;
const append = (bodies: string[]) => corpus.append(bodies);
const randomBody = () => corpus.randomBody();

beforeAll(async () => {
  corpus = await createTermCorpus({ seed: 777, rows: 2000, sessionShare: 0.2, cacheShare: 0.15 });
  store = corpus.store;
});

afterAll(() => corpus.cleanup());

afterEach(() => {
  for (const k of Object.keys(plannerTuning) as (keyof typeof plannerTuning)[]) delete plannerTuning[k];
  clearTermCache(store.db);
});

const request = SESSION_OR_CACHE;
const count = (term: string) =>
  store.db.prepare("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH ?").pluck().get(term) as number;

describe("term knowledge across index changes", () => {
  it("carries counts and impact lists across appends, and ranks the new rows with the old", () => {
    plannerTuning.exactMaxRows = 10;
    const first = rankDocuments(store.db, request);
    expect(first.plan).toBe("impact");
    const list = termCache(store.db).lists.get(SESSION_LIST);
    expect(list).toBeDefined();
    // New rows, one of them the best match of all.
    append([...Array.from({ length: 30 }, randomBody), "session cache session cache session"]);
    const second = rankDocuments(store.db, request);
    const cache = termCache(store.db);
    expect(cache.carried).toBe(true);
    expect(cache.lists.get(SESSION_LIST)).toBe(list); // not rebuilt
    expect(documentFrequency(store.db, cache, "session")).toBe(count("session"));
    expect(documentFrequency(store.db, cache, "cache")).toBe(count("cache"));
    expect(second.exact).toBe(false); // carried knowledge: flagged, though here it is exact
    expect(second.rows.map((r) => r.id)).toEqual(rankExact(store.db, request).map((r) => r.id));
    expect(second.rows[0]!.id).toBe(
      store.db.prepare("SELECT max(id) FROM recall_documents").pluck().get() as number,
    );
  });

  it("ranks as well with short carried lists as after a rebuild, the new best row first", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.depth = 24; // lists hold a fraction of each term's rows
    rankDocuments(store.db, request);
    append([...Array.from({ length: 40 }, randomBody), "session cache session cache cache"]);
    const carried = rankDocuments(store.db, request).rows.map((r) => r.id);
    clearTermCache(store.db);
    const rebuilt = rankDocuments(store.db, request).rows.map((r) => r.id);
    const reference = rankExact(store.db, request).map((r) => r.id);
    expect(carried[0]).toBe(reference[0]);
    const overlap = (a: number[]) => a.filter((id) => reference.includes(id)).length / reference.length;
    expect(overlap(carried)).toBeGreaterThanOrEqual(overlap(rebuilt) - 0.1);
  });

  it("rebuilds stale lists when more new rows match than it scores outright", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.freshMaxRows = 5;
    rankDocuments(store.db, request);
    const list = termCache(store.db).lists.get(SESSION_LIST);
    append(Array.from({ length: 20 }, () => "session cache queue"));
    const ranked = rankDocuments(store.db, request);
    const rebuilt = termCache(store.db).lists.get(SESSION_LIST);
    expect(rebuilt).not.toBe(list);
    expect(rebuilt!.through).toBe(termCache(store.db).top);
    expect(ranked.rows.map((r) => r.id)).toEqual(rankExact(store.db, request).map((r) => r.id));
  });

  it("never gives a new row the rowid of a deleted newest row, which carried lists would take as seen", () => {
    plannerTuning.exactMaxRows = 10;
    append(["neither word here"]);
    const newest = store.db.prepare("SELECT max(id) FROM recall_documents").pluck().get() as number;
    rankDocuments(store.db, request); // lists built through the newest row
    store.db.prepare("DELETE FROM recall_documents WHERE id = ?").run(newest);
    append(["session cache session cache session cache"]);
    const ranked = rankDocuments(store.db, request).rows.map((r) => r.id);
    expect(ranked).toEqual(rankExact(store.db, request).map((r) => r.id));
    expect(ranked[0]).toBeGreaterThan(newest);
  });

  it("starts over once rows rewritten under new rowids pass CARRY_GROWTH, so their counts drift no further", () => {
    plannerTuning.exactMaxRows = 10;
    append(["zebrafinch"]);
    rankDocuments(store.db, request);
    const rows = termCache(store.db).totals.rows;
    const renew = store.db.prepare(
      `UPDATE recall_documents SET body = body || ' again', id = (SELECT max(id) + 1 FROM recall_documents)
       WHERE id = (SELECT max(id) FROM recall_documents)`,
    );
    // A carried count adds the row again at each new rowid (its old count stays): at most the
    // rewrites since the cache started, which stay under CARRY_GROWTH of the rows.
    const limit = Math.ceil(rows * CARRY_GROWTH);
    let worst = 0;
    for (let i = 0; i < 3 * limit; i++) {
      renew.run();
      worst = Math.max(worst, documentFrequency(store.db, termCache(store.db), "zebrafinch"));
    }
    expect(termCache(store.db).totals.rows).toBe(rows);
    expect(worst).toBeLessThanOrEqual(1 + limit);
  });

  it("ranks exactly after a deletion it carries, and starts over when the index grows past CARRY_GROWTH", () => {
    plannerTuning.exactMaxRows = 10;
    const best = rankDocuments(store.db, request).rows[0]!.id;
    // FTS5's row count does not shrink on a contentless-delete table (schema v10): the lists are
    // carried, and the deleted row they hold is dropped when it is looked up.
    store.db.prepare("DELETE FROM recall_documents WHERE id = ?").run(best);
    let cache = termCache(store.db);
    const ranked = rankDocuments(store.db, request).rows.map((r) => r.id);
    expect(ranked).not.toContain(best);
    expect(ranked.slice(0, 5)).toEqual(
      rankExact(store.db, request)
        .map((r) => r.id)
        .slice(0, 5),
    );
    append(Array.from({ length: Math.ceil(cache.totals.rows * CARRY_GROWTH) + 10 }, randomBody));
    cache = termCache(store.db);
    expect(cache.carried).toBe(false);
    expect(cache.df.size).toBe(0);
  });
});
