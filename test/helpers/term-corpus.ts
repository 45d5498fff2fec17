import type { RankRequest } from "../../src/search/planner.js";
import { impactListKey } from "../../src/search/term-cache.js";
import { HISTORY_WEIGHTS } from "../../src/search/weights.js";
import { openHistoryStore, type HistoryStore } from "../../src/store/history-store.js";
import { tempDir } from "./tmp.js";

/**
 * A small history index for the term-cache tests: filler words, "session" in a share of the rows
 * and "cache" in a smaller share, appended as an indexer does (the insert trigger writes FTS rows).
 */
/** search_history's ranking of "session" OR "cache", the term-cache tests' query. */
export const SESSION_OR_CACHE: RankRequest = {
  terms: ["session", "cache"],
  match: "any",
  where: [],
  params: [],
  limit: 10,
  weights: HISTORY_WEIGHTS,
};

/** Where the planner keeps the list of "session" for that query. */
export const SESSION_LIST = impactListKey("session", HISTORY_WEIGHTS);

export interface TermCorpus {
  store: HistoryStore;
  /** Appends documents; returns the last one's id. */
  append(bodies: string[]): number;
  randomBody(): string;
  cleanup(): void;
}

export async function createTermCorpus(options: {
  seed: number;
  rows: number;
  sessionShare: number;
  cacheShare: number;
}): Promise<TermCorpus> {
  let seed = options.seed;
  /** mulberry32: a small PRNG without the short cycles of a float LCG. */
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const repeat = (word: string) => Array.from({ length: 1 + Math.floor(next() * 3) }, () => word);
  const randomBody = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 30) }, () => `f${Math.floor(next() * 5000)}`);
    if (next() < options.sessionShare) words.push(...repeat("session"));
    if (next() < options.cacheShare) words.push(...repeat("cache"));
    return words.join(" ");
  };
  const t = tempDir();
  const store = await openHistoryStore({ home: t.dir, projectionVersion: 1, engine: "fts5" });
  const insert = store.db
    .prepare(`INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, role,
    title, body, projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', ?, 'user', '', ?, 1)`);
  let key = 0;
  const append = (bodies: string[]) => {
    store.db.transaction(() => {
      for (const body of bodies) {
        key++;
        insert.run(String(key), `t:${key}`, 1_700_000_000_000 + key, body);
      }
    })();
    return key;
  };
  append(Array.from({ length: options.rows }, randomBody));
  return {
    store,
    append,
    randomBody,
    cleanup: () => {
      store.db.close();
      t.cleanup();
    },
  };
}
