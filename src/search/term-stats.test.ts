import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { createTermStatsJob } from "../cli/term-stats-job.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";
import { openDatabase, type Db } from "../store/open.js";
import { storedTermRows } from "../store/term-stats.js";
import { plannerTuning, rankDocuments, rankExact, type RankRequest } from "./planner.js";
import { clearTermCache, termCache } from "./term-cache.js";

let store: HistoryStore;
let cleanup = () => {};
let seed = 99;
const next = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
let key = 0;

function append(bodies: string[]): void {
  const insert = store.db
    .prepare(`INSERT INTO recall_documents (source, source_key, hit_id, kind, agent, at, role,
    title, body, projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', ?, 'user', '', ?, 1)`);
  store.db.transaction(() => {
    for (const body of bodies) {
      key++;
      insert.run(String(key), `t:${key}`, 1_700_000_000_000 + key, body);
    }
  })();
}

const randomBody = () => {
  const words = Array.from({ length: 8 + Math.floor(next() * 30) }, () => `f${Math.floor(next() * 5000)}`);
  if (next() < 0.3) words.push(...Array.from({ length: 1 + Math.floor(next() * 3) }, () => "session"));
  if (next() < 0.2) words.push(...Array.from({ length: 1 + Math.floor(next() * 3) }, () => "cache"));
  return words.join(" ");
};

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  store = await openHistoryStore({ home: t.dir, projectionVersion: 1, engine: "fts5" });
  append(Array.from({ length: 2000 }, randomBody));
});

afterAll(() => {
  store.db.close();
  cleanup();
});

afterEach(() => {
  for (const k of Object.keys(plannerTuning) as (keyof typeof plannerTuning)[]) delete plannerTuning[k];
});

const request: RankRequest = { terms: ["session", "cache"], match: "any", where: [], params: [], limit: 10 };

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
      expect(cache.lists.get("session")!.buildMs).toBe(0); // loaded, not built
      expect(cache.carried).toBe(false); // built on exactly this index
      expect(ranked.exact).toBe(true);
      expect(ranked.rows.map((r) => r.id)).toEqual(rankExact(reader, request).map((r) => r.id));
    } finally {
      clearTermCache(reader);
      reader.close();
    }
  });

  it("carries stored statistics over later growth, scoring the newer rows", () => {
    append([...Array.from({ length: 20 }, randomBody), "session cache session cache cache"]);
    plannerTuning.exactMaxRows = 10;
    const reader = fresh();
    try {
      const ranked = rankDocuments(reader, request);
      const cache = termCache(reader);
      expect(cache.lists.get("session")!.buildMs).toBe(0);
      expect(cache.carried).toBe(true);
      expect(ranked.rows.map((r) => r.id)).toEqual(rankExact(reader, request).map((r) => r.id));
      expect(ranked.rows[0]!.id).toBe(key);
    } finally {
      clearTermCache(reader);
      reader.close();
    }
  });
});
