import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";
import { ensureReadIndexes } from "../store/read-indexes.js";
import { bm25Idf, bm25Score, containsPhrase, countTerms, foldedTokens } from "./bm25.js";
import { docsizeTotal, ftsTotals } from "./fts-index.js";
import { filterSql } from "./filters.js";
import {
  plannerTuning,
  rankDocuments,
  rankExact,
  rankExactCut,
  shortOfRows,
  type RankRequest,
  type RankResult,
} from "./planner.js";
import { clearTermCache } from "./term-cache.js";
import { CHAT_WEIGHTS, HISTORY_WEIGHTS } from "./weights.js";

/** A small deterministic corpus with a skewed vocabulary, shared titles, several apps and projects. */
const VOCAB = [
  "session",
  "index",
  "cache",
  "build",
  "test",
  "error",
  "query",
  "worker",
  "deploy",
  "token",
  "retry",
  "schema",
  "batch",
  "queue",
  "timeout",
  "login",
  "parser",
  "cursor",
  "shard",
  "replica",
  "ledger",
  "webhook",
  "throttle",
];
const RARE = ["quokka", "zephyr", "pangolin", "narwhal", "axolotl"];
const UNICODE = ["café", "Größe", "ёлка", "東京", "naïve", "Straße", "łódź", "crème"];

let store: HistoryStore;
let cleanup = () => {};
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const zipf = (list: readonly string[]) => list[Math.floor(Math.pow(next(), 2.2) * list.length)]!;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  store = await openHistoryStore({ home: t.dir, projectionVersion: 1, engine: "fts5" });
  const insert = store.db
    .prepare(`INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, project, app_id,
    chat_id, role, title, body, session, projection_version)
    VALUES ('test', ?, ?, ?, ?, ?, ?, ?, ?, 'user', ?, ?, ?, 1)`);
  store.db.transaction(() => {
    let title = "";
    for (let i = 0; i < 3000; i++) {
      if (i % 12 === 0)
        title = Array.from({ length: 1 + Math.floor(next() * 4) }, () => zipf(VOCAB)).join(" ");
      const words: string[] = [];
      const n = 2 + Math.floor(next() * 30);
      for (let w = 0; w < n; w++) {
        const r = next();
        words.push(r < 0.01 ? zipf(RARE) : r < 0.05 ? zipf(UNICODE) : r < 0.3 ? "the" : zipf(VOCAB));
        if (next() < 0.1)
          words.push(
            ["—", ",", ".", "src/auth/session.ts", "ERR_SOCKET_TIMEOUT", "🚀", "abcгде"][
              Math.floor(next() * 7)
            ]!,
          );
      }
      insert.run(
        String(i),
        `t:${i}`,
        next() < 0.8 ? "transcript" : "message",
        next() < 0.5 ? "claude" : "codex",
        1_700_000_000_000 + Math.floor(next() * 1000) * 60_000, // many equal times: ties break by id
        `/p/${Math.floor(next() * 4)}`,
        1 + Math.floor(next() * 3),
        Math.floor(i / 12),
        title,
        words.join(" "),
        `s${i % 250}`,
      );
    }
  })();
});

afterAll(() => {
  store.db.close();
  cleanup();
});

/** search_history's request for `terms` under `filters`. */
function filteredRequest(
  filters: Parameters<typeof filterSql>[0],
  terms: string[],
  match: "all" | "any",
  limit: number,
): RankRequest {
  return { terms, match, ...filterSql(filters), limit, weights: HISTORY_WEIGHTS };
}

/** Plans the request, which must fall back to the reference and answer with its rows. */
function expectFallback(request: RankRequest): RankResult {
  const planned = rankDocuments(store.db, request);
  expect(planned.plan).toBe("fallback");
  expect(planned.rows.map((r) => r.id)).toEqual(rankExact(store.db, request).map((r) => r.id));
  return planned;
}

afterEach(() => {
  for (const key of Object.keys(plannerTuning) as (keyof typeof plannerTuning)[]) delete plannerTuning[key];
  clearTermCache(store.db);
});

function randomRequest(): RankRequest {
  const n = 1 + Math.floor(next() * 3);
  const terms = new Set<string>();
  while (terms.size < n) {
    const word = next() < 0.15 ? zipf(RARE) : zipf(["the", ...VOCAB]);
    // Prefix terms (search_chats' stems): "sess*" matches session, sessions, …
    terms.add(next() < 0.2 ? `${word.slice(0, 4)}*` : word);
  }
  const filters: Parameters<typeof filterSql>[0] = {};
  const r = next();
  if (r < 0.15) filters.project = `/p/${Math.floor(next() * 4)}`;
  else if (r < 0.3) filters.appId = 1 + Math.floor(next() * 3);
  else if (r < 0.4) filters.kind = "message";
  else if (r < 0.5) filters.since = 1_700_000_000_000 + 600 * 60_000;
  else if (r < 0.6) filters.sessions = [`s${Math.floor(next() * 250)}`, `s${Math.floor(next() * 250)}`];
  const { where, params } = filterSql(filters);
  return {
    terms: [...terms],
    match: next() < 0.5 ? "all" : "any",
    where,
    params,
    limit: next() < 0.5 ? 10 : 60,
    weights: next() < 0.5 ? CHAT_WEIGHTS : HISTORY_WEIGHTS,
    ...(next() < 0.1 ? { excludeIds: [1, 2, 3, 50, 51] } : {}),
  };
}

describe("query planner", () => {
  it("returns exactly the reference ranking whenever it says so, through every plan", () => {
    plannerTuning.exactMaxRows = 150;
    plannerTuning.enumerateMaxRows = 60;
    plannerTuning.depth = 48;
    const plans = new Map<string, number>();
    let approximate = 0;
    for (let q = 0; q < 400; q++) {
      const request = randomRequest();
      const reference = rankExact(store.db, request);
      const planned = rankDocuments(store.db, request);
      plans.set(planned.plan, (plans.get(planned.plan) ?? 0) + 1);
      if (!planned.exact) {
        approximate++;
        expect(planned.rows).toHaveLength(request.limit);
        continue;
      }
      expect(
        planned.rows.map((r) => r.id),
        JSON.stringify(request),
      ).toEqual(reference.map((r) => r.id));
      planned.rows.forEach((r, i) => expect(r.score).toBeCloseTo(reference[i]!.score, 9));
    }
    for (const plan of ["exact", "enumerate", "filtered", "impact"])
      expect(plans.get(plan) ?? 0, plan).toBeGreaterThan(0);
    expect(approximate).toBeLessThan(200);
  });

  it("ranks in FTS5 alone, then filters and breaks ties, with the reference's answer", () => {
    for (let q = 0; q < 200; q++) {
      const request = randomRequest();
      expect(rankExactCut(store.db, request), JSON.stringify(request)).toEqual(rankExact(store.db, request));
    }
  });

  it("keeps the reference when forced, and reports every plan to an observer", () => {
    const seen: RankResult[] = [];
    plannerTuning.exact = true;
    plannerTuning.observe = (r) => seen.push(r);
    const request: RankRequest = {
      terms: ["session", "cache"],
      match: "any",
      where: [],
      params: [],
      limit: 5,
      weights: HISTORY_WEIGHTS,
    };
    expect(rankDocuments(store.db, request).rows).toEqual(rankExact(store.db, request));
    expect(seen.map((r) => r.plan)).toEqual(["exact"]);
  });

  it("finds rare rows among common ones exactly with the impact plan", () => {
    plannerTuning.exactMaxRows = 10;
    const request: RankRequest = {
      terms: ["quokka", "session", "the"],
      match: "any",
      where: [],
      params: [],
      limit: 20,
      weights: HISTORY_WEIGHTS,
    };
    const planned = rankDocuments(store.db, request);
    expect(planned.plan).toBe("impact");
    const reference = rankExact(store.db, request);
    if (planned.exact) expect(planned.rows.map((r) => r.id)).toEqual(reference.map((r) => r.id));
    expect(planned.rows[0]!.id).toBe(reference[0]!.id);
  });

  it("scores at most the request's maxScored rows before it settles for an approximate answer", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.depth = 64;
    const request: RankRequest = {
      terms: ["the", "session", "index"],
      match: "any",
      where: [],
      params: [],
      limit: 10,
      weights: HISTORY_WEIGHTS,
    };
    const full = rankDocuments(store.db, request);
    const bounded = rankDocuments(store.db, { ...request, maxScored: 40 });
    expect([full.plan, bounded.plan]).toEqual(["impact", "impact"]);
    expect(full.scored).toBeGreaterThan(40);
    expect(bounded.scored).toBeLessThanOrEqual(40);
    expect(bounded.rows).toHaveLength(10);
    // A budget that is no positive number scores nothing and falls back to the reference.
    for (const maxScored of [0, -5, Number.NaN]) {
      const none = rankDocuments(store.db, { ...request, maxScored });
      expect([none.plan, none.scored]).toEqual(["fallback", 0]);
      expect(none.rows.map((r) => r.id)).toEqual(rankExact(store.db, request).map((r) => r.id));
    }
  });

  it("gives up on AND terms whose rows seldom pass before the budget is spent, with the reference's answer", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.enumerateMaxRows = 0;
    plannerTuning.filteredMaxRows = 0;
    plannerTuning.depth = 1_000;
    // One session's dozen rows among thousands holding both words.
    const planned = expectFallback(filteredRequest({ sessions: ["s7"] }, ["session", "the"], "all", 10));
    expect(planned.scored).toBeGreaterThan(0);
    expect(planned.scored).toBeLessThan(1_000);
  });

  it("gives up at once when the listed stretch's pass rate cannot fill the answer, though the stretch holds enough rows", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.enumerateMaxRows = 20;
    plannerTuning.filteredMaxRows = 0;
    plannerTuning.depth = 1_000;
    // Ten or more of the listed stretch's candidates hold both words (the check once let those
    // count as found), but at the stretch's rate a budget of 20 rows finds fewer than ten.
    const request = filteredRequest({}, ["error", "query"], "all", 10);
    const planned = expectFallback({ ...request, maxScored: 20 });
    expect(planned.scored).toBe(0);
  });

  it("tells a pass rate too low for the budget from one that may still fill the answer", () => {
    expect(shortOfRows(0, 480, 2_048, 10)).toBe(true);
    expect(shortOfRows(2, 480, 2_048, 10)).toBe(true); // 2 in 480 rows: about 8 in 2,048
    expect(shortOfRows(3, 480, 2_048, 10)).toBe(false);
    expect(shortOfRows(10, 480, 2_048, 10)).toBe(false);
  });

  it("scores rows added after some lists were built once, though newer lists hold them", () => {
    plannerTuning.exactMaxRows = 10;
    const request = (terms: string[]): RankRequest => ({
      terms,
      match: "any",
      where: [],
      params: [],
      limit: 20,
      weights: HISTORY_WEIGHTS,
    });
    rankDocuments(store.db, request(["quokka"])); // its list ends at the index as it is now
    const insert = store.db
      .prepare(`INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at,
      role, title, body, projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', 1, 'user', '', ?, 1)`);
    // Inserted through the documents view (history-v16.ts), whose trigger's rowid is not reported.
    const added = [0, 1, 2].map((i) => {
      insert.run(`new${i}`, `t:new${i}`, "quokka zephyr ".repeat(8));
      return store.db
        .prepare("SELECT id FROM recall_documents WHERE source_key = ?")
        .pluck()
        .get(`new${i}`) as number;
    });
    try {
      rankDocuments(store.db, request(["zephyr"])); // this one holds the new rows
      const both = rankDocuments(store.db, request(["quokka", "zephyr"]));
      expect(both.plan).toBe("impact");
      const ids = both.rows.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(added));
    } finally {
      store.db.prepare("DELETE FROM recall_documents WHERE source_key LIKE 'new%'").run();
    }
  });

  it("falls back to the reference when filters leave the impact lists short", () => {
    plannerTuning.exactMaxRows = 10;
    plannerTuning.depth = 16;
    plannerTuning.filteredMaxRows = 0;
    const request = filteredRequest(
      { project: "/p/3", kind: "message", agent: "codex" },
      ["the", "session"],
      "any",
      40,
    );
    expect(expectFallback(request).exact).toBe(true);
  });

  it("scores the few rows a selective filter admits, and never lists by a table scan", () => {
    plannerTuning.exactMaxRows = 10;
    for (const match of ["all", "any"] as const) {
      const session = filterSql({ sessions: ["s7", "s8"], conversationRefs: true });
      const request: RankRequest = {
        terms: ["the", "session"],
        match,
        ...session,
        limit: 10,
        weights: HISTORY_WEIGHTS,
      };
      const planned = rankDocuments(store.db, request);
      expect(planned.plan).toBe("filtered");
      expect(planned.scored).toBe(24);
      expect(planned.rows.map((r) => r.id)).toEqual(rankExact(store.db, request).map((r) => r.id));
    }
    // Without the project index (a first backfill builds it at its end) the listing would scan;
    // a reader that planned then takes the plan once the index is built.
    const byProject: RankRequest = {
      terms: ["the", "session"],
      match: "any",
      ...filterSql({ project: "/p/3" }),
      limit: 10,
      weights: HISTORY_WEIGHTS,
    };
    store.db.exec("DROP INDEX recall_documents_project");
    expect(rankDocuments(store.db, byProject).plan).not.toBe("filtered");
    ensureReadIndexes(store.db);
    expect(rankDocuments(store.db, byProject).plan).toBe("filtered");
    // An agent and kind alone can only be checked row by row: listing them would scan the table.
    const scan = filterSql({ agent: "codex", kind: "message" });
    const request: RankRequest = {
      terms: ["the", "session"],
      match: "any",
      ...scan,
      limit: 10,
      weights: HISTORY_WEIGHTS,
    };
    expect(rankDocuments(store.db, request).plan).not.toBe("filtered");
  });
});

describe("bm25 in JavaScript", () => {
  it("reproduces FTS5's score for every row of a query", () => {
    const terms = ["session", "cache", "the"];
    const totals = ftsTotals(store.db);
    const df = terms.map(
      (t) =>
        (
          store.db.prepare("SELECT count(*) AS n FROM recall_fts WHERE recall_fts MATCH ?").get(`"${t}"`) as {
            n: number;
          }
        ).n,
    );
    const rows = store.db
      .prepare(
        `SELECT d.title, d.body, z.sz, bm25(recall_fts, 3.0, 1.0) AS score FROM recall_fts
         JOIN recall_documents d ON d.id = recall_fts.rowid JOIN recall_fts_docsize z ON z.id = d.id
         WHERE recall_fts MATCH '"session" OR "cache" OR "the"'`,
      )
      .all() as { title: string; body: string; sz: Buffer; score: number }[];
    expect(rows.length).toBeGreaterThan(100);
    let compared = 0;
    for (const row of rows) {
      const f = [0, 0, 0];
      if (!countTerms(row.title, terms, 3, f) || !countTerms(row.body, terms, 1, f)) continue;
      const score = bm25Score(
        df.map((n) => bm25Idf(totals.rows, n)),
        f,
        docsizeTotal(row.sz),
        totals.avgdl,
      );
      expect(score).toBeCloseTo(row.score, 12);
      compared++;
    }
    expect(compared).toBeGreaterThan(rows.length * 0.8);
  });

  it("counts terms as unicode61 tokenizes them, or declines", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')");
    const prefixes = ["inde*", "caf*", "abc*", "naiv*", "stras*"];
    const texts = [
      "Index index INDEX reindex index_ index2 2index",
      "café cafe CAFÉ cafés Café-cafe",
      "abcгде abc где-abc abc—abc abc«abc»",
      "東京abc abc東京 abc 東京 🚀abc🚀 abc",
      "Straße strasse STRASSE łódź lodz",
      "naïve naive NAÏVE nai\u0308ve",
      "src/auth/session.ts ERR_SOCKET_TIMEOUT err socket timeout",
      "Zażółć gęślą jaźń index indexing ø indexø",
    ];
    const terms = [
      "index",
      "abc",
      "cafe",
      "err",
      "timeout",
      "naive",
      "lodz",
      "strasse",
      "ts",
      "2index",
      ...prefixes,
    ];
    const insert = db.prepare("INSERT INTO t (rowid, body) VALUES (?, ?)");
    texts.forEach((text, i) => insert.run(i + 1, text));
    let declined = 0;
    for (const [i, text] of texts.entries()) {
      const f = new Array<number>(terms.length).fill(0);
      if (!countTerms(text, terms, 1, f)) {
        declined++;
        continue;
      }
      terms.forEach((term, k) => {
        const phrase = term.endsWith("*") ? `"${term.slice(0, -1)}"*` : `"${term}"`;
        const row = db
          // A JavaScript number binds as REAL, which FTS5's rowid constraint mishandles: pass ids as JSON.
          .prepare(
            "SELECT highlight(t, 0, char(1), char(2)) AS h FROM t WHERE t MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
          )
          .get(phrase, `[${i + 1}]`) as { h: string } | undefined;
        const expected = row ? row.h.split("\x01").length - 1 : 0;
        expect(f[k], `${term} in ${text}`).toBe(expected);
      });
    }
    expect(declined).toBeLessThanOrEqual(3);
    // Letters of unknown folding (ł, ø) only make counting decline where they could touch a term.
    expect(countTerms(texts.at(-1)!, ["index", "inde*"], 1, [0, 0])).toBe(true);
    // Phrases: adjacent tokens in order, as FTS5's "a b" phrase query.
    const phrases: [string, string][] = [
      ["index", "index"],
      ["abc", "abc"],
      ["cafe", "cafe"],
      ["err", "socket"],
      ["session", "ts"],
      ["naive", "naive"],
    ];
    for (const tokens of phrases) {
      for (const [i, text] of texts.entries()) {
        const mine = foldedTokens(text);
        if (!mine) continue;
        const fts = db
          .prepare("SELECT 1 FROM t WHERE t MATCH ? AND rowid IN (SELECT value FROM json_each(?))")
          .get(`"${tokens.join(" ")}"`, `[${i + 1}]`);
        expect(containsPhrase(mine, tokens), `${tokens.join(" ")} in ${text}`).toBe(fts !== undefined);
      }
    }
    db.close();
  });
});
