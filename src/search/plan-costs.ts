/** The planner's cost model (planner.ts chooses each query's plan by these estimates). */

/**
 * Rough costs in microseconds, measured on the benchmark machine (2 EPYC cores, 1M messages):
 * FTS5 counting a posting for an IDF, walking it to intersect an AND query's terms, scoring a row
 * with bm25(), and the planner reading and scoring a row itself. A row read so costs 16–21 µs on
 * Zipf text and 31–44 on the demo's (tool previews in the text); at 6 µs, the planner enumerated
 * three common words' 850 rows in 48 ms where FTS5 ranks them in 20 (docs/benchmarks.md, 12-06).
 */
export const COST = { idf: 0.05, walk: 0.04, ftsRow: 0.6, jsRow: 25, prefixRow: 4 } as const;
/**
 * An OR query's impact plan's expected cost (µs): FTS5 ranks the query itself when its postings
 * cost less. The plan seldom scores its whole budget (the relaxed pass: 96 rows at the median,
 * 512 at most, at 1M); OR passes it answered in 2–10 ms took the reference 9–27 ms (Zipf).
 */
export const OR_IMPACT_COST = 12_000;
/**
 * A prefix term costs FTS5 far more per posting than a word: it merges the postings of every
 * token with the prefix into one list before it can count or score them (`prefixRow` per posting).
 */
export const PREFIX_WEIGHT = COST.prefixRow / (COST.idf + COST.ftsRow);
