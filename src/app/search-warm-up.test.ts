import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import { writeTermStats } from "../store/term-stats.js";
import { warmUpQueries } from "./search-warm-up.js";

/** Stored statistics for `term` found in `df` documents (the list itself does not matter here). */
const stored = (term: string, df: number) => ({
  term,
  df,
  through: 10,
  builtRows: 10,
  idf: 1,
  avgdl: 10,
  complete: true,
  ids: Float64Array.from([1]),
  impacts: Float64Array.from([1]),
});

describe("the search warm-up of a fresh process", () => {
  const store = tempHistoryStores();

  it("asks nothing of an index without stored term statistics", async () => {
    const { db } = await store();
    expect(warmUpQueries(db)).toEqual([]);
  });

  it("draws its queries from the most frequent stored words, skipping stopwords and stem prefixes", async () => {
    const { db } = await store();
    // word0 is the most frequent word, word39 the least; "the" and the prefixes are more frequent.
    for (let i = 0; i < 40; i++) writeTermStats(db, stored(`word${i}`, 1_000 - i));
    writeTermStats(db, stored("the", 5_000));
    writeTermStats(db, stored("word*", 6_000));
    expect(warmUpQueries(db)).toEqual(["word0 word1 word2", "word10 word30", "word18/word19.word20"]);
  });

  it("asks the path of mid-tier words once the list reaches them, before the second tier", async () => {
    const { db } = await store();
    for (let i = 0; i < 25; i++) writeTermStats(db, stored(`word${i}`, 1_000 - i));
    expect(warmUpQueries(db)).toEqual(["word0 word1 word2", "word18/word19.word20"]);
  });

  it("asks only the common-words query of an index with a short list", async () => {
    const { db } = await store();
    for (let i = 0; i < 5; i++) writeTermStats(db, stored(`word${i}`, 100 - i));
    expect(warmUpQueries(db)).toEqual(["word0 word1 word2"]);
  });
});
