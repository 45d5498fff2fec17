/**
 * search_history's exact contract (history-search-spec "Exact MCP contract"): input bounds and
 * errors, token cap, filters, snippets, link shapes, session aliases, both engines, and the
 * fields recall adds (relaxed, active, coverage), plus exclusion of the calling session.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecallError } from "../src/core/errors.js";
import { RELAXED_MAX_SCORED } from "../src/search/history.js";
import { plannerTuning } from "../src/search/planner.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import {
  readCoverage,
  writeCoverage,
  type CoverageEntry,
  type PublishedCoverage,
} from "../src/store/coverage-row.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import type { ToolContext } from "../src/tools/definition.js";
import { runTool } from "../src/tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../src/tools/search-history.js";
import { runCli } from "./helpers/cli.js";
import { seedDocuments, type SeedDoc } from "./helpers/seed.js";
import { tempDir } from "./helpers/tmp.js";

const T0 = Date.UTC(2026, 0, 1);
const S1 = "11111111-1111-4111-8111-111111111111";
const S2 = "22222222-2222-4222-8222-222222222222";
const S3 = "33333333-3333-4333-8333-333333333333";
const TOKENS32 = Array.from({ length: 32 }, (_, i) => `tok${String.fromCharCode(97 + (i % 26))}${i}`);
const LONG = `${"an unrelated sentence about weather and lunch. ".repeat(40)}the pelican appears here ${"more filler words follow the bird. ".repeat(40)}`;

const DOCS: SeedDoc[] = [
  {
    key: "a1",
    text: "the flamingo migration plan was approved",
    at: T0 + 1000,
    agent: "claude",
    project: "/p/alpha",
    session: S1,
    cursor: "120",
  },
  {
    key: "a2",
    text: "flamingo migration rollback discussed",
    at: T0 + 2000,
    agent: "codex",
    project: "/p/beta",
    session: S2,
    cursor: "340",
  },
  {
    key: "a3",
    text: "flamingo budget review",
    at: T0 + 3000,
    agent: "opencode",
    project: "/p/alpha",
    session: S3,
    cursor: "msg_9",
  },
  {
    key: "m1",
    text: "flamingo migration status message",
    at: T0 + 4000,
    kind: "message",
    agent: "other",
    job: "deploy-job",
    hitId: "message:42",
    message: "42",
    conversation: "message:thread-1",
  },
  {
    key: "r1",
    text: "flamingo migration run log line",
    at: T0 + 5000,
    kind: "run",
    agent: "codex",
    job: "deploy-job",
    run: "deploy-2026.log",
    cursor: "2048",
    hitId: "run:deploy-2026.log#2048",
    conversation: "run:deploy-2026.log",
  },
  {
    key: "d1",
    text: "flamingo decision: use postgres for the migration",
    at: T0 + 6000,
    kind: "decision",
    agent: "other",
    hitId: "decision:db-choice@3",
    conversation: "decision:db-choice",
  },
  {
    key: "nfd",
    text: "flamingo menu tasting notes",
    at: T0 + 6200,
    agent: "claude",
    project: "/p/cafe\u0301",
    session: "cafe-session",
  },
  {
    key: "c1",
    text: "flamingo app chat about the seating chart",
    at: T0 + 6500,
    kind: "chat",
    agent: "dyad",
    hitId: "chat:dyad:7:70",
    conversation: "chat:dyad:7",
  },
  { key: "long", text: LONG, at: T0 + 7000, agent: "claude", project: "/p/gamma", session: "long-session" },
  {
    key: "toks",
    text: TOKENS32.join(" "),
    at: T0 + 8000,
    agent: "claude",
    project: "/p/gamma",
    session: "tokens-session",
  },
];

const HIT_FIELDS = [
  "id",
  "kind",
  "agent",
  "at",
  "snippet",
  "link",
  "sourceLink",
  "message",
  "job",
  "run",
  "session",
  "cursor",
  "conversation",
  "project",
  // Issue #29 names these two additive fields.
  "role",
  "title",
];

function harness(engine: "fts5" | "plain") {
  let store: HistoryStore;
  let cleanup = () => {};
  beforeAll(async () => {
    const t = tempDir(`recall-sh-${engine}-`);
    cleanup = t.cleanup;
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
      engine,
    });
    seedDocuments(store.db, DOCS, [{ alias: "feature-x", session: S1 }]);
    // A session still being written to: its record is two minutes old.
    seedDocuments(store.db, [
      {
        key: "live",
        text: "flamingo live note",
        at: Date.now() - 120_000,
        agent: "claude",
        session: "live-session",
      },
    ]);
  });
  afterAll(() => {
    store?.close();
    cleanup();
  });
  const call = async (args: unknown, ctx: ToolContext = {}): Promise<SearchHistoryOutput> =>
    JSON.parse(
      await runTool(createSearchHistoryTool(store.db, store.engine), args, ctx),
    ) as SearchHistoryOutput;
  const fails = async (args: unknown): Promise<RecallError> => {
    try {
      await runTool(createSearchHistoryTool(store.db, store.engine), args, {});
    } catch (error) {
      return error as RecallError;
    }
    throw new Error("expected a Validation error");
  };
  return { call, fails, db: () => store.db };
}

describe("search_history input (fts5)", () => {
  const h = harness("fts5");

  it.each([
    // One issue, not a second "must contain a word" about the same empty string.
    ["an empty query", { query: "" }, /^query: [^;]*$/],
    ["a whitespace-only query", { query: "   \t " }, /^query: [^;]*$/],
    ["a punctuation-only query", { query: "?!… -- ** ()" }, /^query: .*word or number/],
    ["a 1001-character query", { query: "a".repeat(1001) }, /^query: /],
    ["since after until", { query: "x", filters: { since: T0 + 10, until: T0 } }, /^filters\.since: /],
    ["an unknown agent", { query: "x", filters: { agent: "gpt" } }, /^filters\.agent: /],
    ["an unknown kind", { query: "x", filters: { kind: "email" } }, /^filters\.kind: /],
    [
      "a date without a timezone",
      { query: "x", filters: { since: "2026-01-01T00:00:00" } },
      /^filters\.since: .*timezone/,
    ],
    [
      "a day its month does not have",
      { query: "x", filters: { until: "2026-02-29T00:00:00Z" } },
      /^filters\.until: is not a valid date/,
    ],
    [
      "epoch milliseconds past any date",
      { query: "x", filters: { since: "99999999999999999999" } },
      /^filters\.since: must be epoch milliseconds from 0 to/,
    ],
    [
      "a numeric bound past any date",
      { query: "x", filters: { until: 9e15 } },
      /^filters\.until: must be epoch/,
    ],
    ["limit 0", { query: "x", limit: 0 }, /^limit: /],
    ["limit 51", { query: "x", limit: 51 }, /^limit: /],
    ["an unknown filter", { query: "x", filters: { app: 1 } }, /^filters\.app: unknown field/],
  ])("rejects %s with a Validation error naming the field", async (_name, args, message) => {
    const error = await h.fails(args);
    expect(error).toBeInstanceOf(RecallError);
    expect(error.kind).toBe("Validation");
    expect(error.message).toMatch(message);
  });

  it("accepts the bounds: 1000 characters, limit 1 and 50, trimmed query, since == until", async () => {
    expect((await h.call({ query: ` ${"a".repeat(1000)} ` })).hits).toEqual([]);
    expect((await h.call({ query: "flamingo", limit: 1 })).hits).toHaveLength(1);
    expect((await h.call({ query: "flamingo", limit: 50 })).hits.length).toBeGreaterThan(1);
    const exact = await h.call({ query: "flamingo", filters: { since: T0 + 2000, until: T0 + 2000 } });
    expect(exact.hits.map((x) => x.id)).toEqual([`transcript:codex:${S2}:a2`]);
  });

  it("defaults limit to 10 and answer to false", async () => {
    const out = await h.call({ query: "flamingo" });
    expect(out.hits.length).toBeLessThanOrEqual(10);
    expect(out).not.toHaveProperty("answer");
  });

  it("ignores a 33rd token instead of failing", async () => {
    const out = await h.call({ query: `${TOKENS32.join(" ")} missingtoken33` });
    expect(out.hits).toHaveLength(1);
    expect(out.hits[0]!.relaxed).toBeUndefined();
    expect(out.hits[0]!.session).toBe("tokens-session");
    // The same token within the first 32 makes strict AND fail: it really counts when present.
    const strict = await h.call({ query: `missingtoken33 ${TOKENS32.slice(0, 31).join(" ")}` });
    expect(strict.hits.every((x) => x.relaxed === true)).toBe(true);
  });

  it("treats caller text as literal words, never FTS syntax", async () => {
    const out = await h.call({ query: 'flamingo" OR NEAR(x) * budget:' });
    // flamingo AND or AND near AND x AND budget: nothing has all of them strictly.
    expect(out.hits.filter((x) => !x.relaxed)).toEqual([]);
  });

  it("returns AND hits first, then OR-relaxed hits marked relaxed", async () => {
    const out = await h.call({ query: "flamingo budget", limit: 5 });
    expect(out.hits[0]!.id).toBe(`transcript:opencode:${S3}:a3`);
    expect(out.hits[0]!.relaxed).toBeUndefined();
    expect(out.hits.slice(1).every((x) => x.relaxed === true)).toBe(true);
    expect(new Set(out.hits.map((x) => x.id)).size).toBe(out.hits.length);
  });

  it("gives the relaxed pass the smaller scoring budget, and the strict pass the planner's own", async () => {
    const seen: [string, number | undefined][] = [];
    plannerTuning.observe = (_result, request) => seen.push([request.match, request.maxScored]);
    try {
      await h.call({ query: "flamingo budget", limit: 5 });
    } finally {
      delete plannerTuning.observe;
    }
    // Words as typed, then in any form ("flamingo*", "budget*"), then any word.
    expect(seen).toEqual([
      ["all", undefined],
      ["all", undefined],
      ["any", RELAXED_MAX_SCORED],
    ]);
  });

  it("combines filters (project, agent, kind, job, session, time)", async () => {
    const ids = async (filters: Record<string, unknown>) =>
      (await h.call({ query: "flamingo", filters, limit: 50 })).hits
        .filter((x) => !x.relaxed)
        .map((x) => x.id)
        .sort();
    expect(await ids({ project: "/p/alpha" })).toEqual([
      `transcript:claude:${S1}:a1`,
      `transcript:opencode:${S3}:a3`,
    ]);
    expect(await ids({ project: "/p/alpha", agent: "claude" })).toEqual([`transcript:claude:${S1}:a1`]);
    // A trailing slash or dot names the same folder.
    expect(await ids({ project: "/p/alpha//" })).toEqual(await ids({ project: "/p/alpha" }));
    expect(await ids({ project: "/p/./alpha/." })).toEqual(await ids({ project: "/p/alpha" }));
    // Stored decomposed (as macOS file systems hand it out), typed composed: the same folder.
    expect(await ids({ project: "/p/caf\u00e9" })).toEqual(["transcript:claude:cafe-session:nfd"]);
    expect(await ids({ project: "/" })).toEqual([]);
    expect(await ids({ kind: "message" })).toEqual(["message:42"]);
    expect(await ids({ job: "deploy-job" })).toEqual(["message:42", "run:deploy-2026.log#2048"]);
    expect(await ids({ job: "deploy-job", kind: "run" })).toEqual(["run:deploy-2026.log#2048"]);
    expect(await ids({ agent: "codex", kind: "transcript" })).toEqual([`transcript:codex:${S2}:a2`]);
    expect(await ids({ since: T0 + 2000, until: T0 + 3000 })).toEqual([
      `transcript:codex:${S2}:a2`,
      `transcript:opencode:${S3}:a3`,
    ]);
    expect(
      await ids({ since: "2026-01-01T00:00:02Z", until: "2026-01-01T01:00:03+01:00", project: "/p/alpha" }),
    ).toEqual([`transcript:opencode:${S3}:a3`]);
    expect(await ids({ since: String(T0 + 5000), kind: "decision" })).toEqual(["decision:db-choice@3"]);
    expect(await ids({ project: "/p/beta", agent: "claude" })).toEqual([]);
    // "other" is every agent but the three CLIs: the bridge's peers and Dyad's chats.
    expect(await ids({ agent: "other" })).toEqual(["chat:dyad:7:70", "decision:db-choice@3", "message:42"]);
  });

  it("filters by exact session id or a known alias of it", async () => {
    const bySession = await h.call({ query: "flamingo", filters: { session: S1 } });
    const byAlias = await h.call({ query: "flamingo", filters: { session: "feature-x" } });
    expect(bySession.hits.map((x) => x.id)).toEqual([`transcript:claude:${S1}:a1`]);
    expect(byAlias.hits.map((x) => x.id)).toEqual(bySession.hits.map((x) => x.id));
    expect((await h.call({ query: "flamingo", filters: { session: "no-such-alias" } })).hits).toEqual([]);
  });

  it("keeps snippets plain text of at most 320 characters", async () => {
    const out = await h.call({ query: "pelican" });
    expect(out.hits).toHaveLength(1);
    expect(LONG.length).toBeGreaterThan(1000);
    for (const x of [...out.hits, ...(await h.call({ query: "flamingo", limit: 50 })).hits]) {
      expect(Array.from(x.snippet).length).toBeLessThanOrEqual(320);
      expect(x.snippet).not.toMatch(/[<>\n]/);
    }
    expect(out.hits[0]!.snippet).toContain("pelican");
  });

  it("returns exactly the spec's hit fields, with its link and sourceLink shapes", async () => {
    const out = await h.call({ query: "flamingo migration", limit: 50 });
    const byId = new Map(out.hits.map((x) => [x.id, x]));
    for (const x of out.hits) {
      const extra = Object.keys(x).filter((k) => !HIT_FIELDS.includes(k));
      expect(extra.every((k) => k === "relaxed" || k === "active")).toBe(true);
      expect(Object.keys(x)).toEqual(expect.arrayContaining(HIT_FIELDS));
      expect(x.sourceLink).toBe(`/api/history/${encodeURIComponent(x.id)}`);
    }
    const a1 = byId.get(`transcript:claude:${S1}:a1`)!;
    expect(a1).toMatchObject({
      kind: "transcript",
      agent: "claude",
      at: T0 + 1000,
      session: S1,
      cursor: "120",
      project: "/p/alpha",
    });
    expect(a1.link).toBe(`/?session=${S1}&agent=claude&from=120`);
    expect(byId.get("message:42")!.link).toBe("/?message=42");
    expect(byId.get("run:deploy-2026.log#2048")!.link).toBe("/api/runs/deploy-2026?from=2048");
    expect(byId.get("run:deploy-2026.log#2048")!.run).toBe("deploy-2026.log");
    expect(byId.get("decision:db-choice@3")!.link).toBe("/api/decisions/db-choice/history");
    expect(out.engine).toBe("fts5");
  });

  it("marks hits from sessions written to in the last 10 minutes as active", async () => {
    const out = await h.call({ query: "flamingo", limit: 50 });
    const live = out.hits.find((x) => x.session === "live-session")!;
    expect(live.active).toBe(true);
    expect(out.hits.filter((x) => x.active).map((x) => x.session)).toEqual(["live-session"]);
  });

  it("leaves out the calling session's own records, by id or alias", async () => {
    const all = (await h.call({ query: "flamingo", limit: 50 })).hits.map((x) => x.session);
    expect(all).toContain(S1);
    const own = (await h.call({ query: "flamingo", limit: 50 }, { session: S1 })).hits.map((x) => x.session);
    expect(own).not.toContain(S1);
    expect(own).toContain(S2);
    expect(own.length).toBe(all.length - 1);
    const viaAlias = (await h.call({ query: "flamingo", limit: 50 }, { session: "feature-x" })).hits;
    expect(viaAlias.map((x) => x.session)).not.toContain(S1);
  });

  it("carries coverage on every response, empty or not: per source, or one object when all are ready", async () => {
    const none = await h.call({ query: "zzzznothing" });
    expect(none.hits).toEqual([]);
    expect(Array.isArray(none.coverage)).toBe(true);
    expect((none.coverage as CoverageEntry[]).map((c) => c.source)).toContain("test");
    const source = (name: string, indexing: boolean, indexedThrough: number | null, backlog: number) => ({
      source: name,
      indexing,
      indexedThrough,
      backlog,
      backlogBytes: backlog * 10,
      filesKnown: 9,
      discovered: true,
    });
    const publish = (sources: PublishedCoverage["sources"]) =>
      writeCoverage(h.db(), {
        v: 1,
        publishedAt: Date.now(),
        writer: "broker",
        pid: 1,
        rebuilding: false,
        lastRun: null,
        sources,
      });
    publish([source("claude-code", true, T0, 7), source("codex", false, T0 + 5, 0)]);
    const out = await h.call({ query: "zzzznothing" });
    expect(out.coverage).toEqual([
      { source: "claude-code", state: "indexing", indexedThrough: T0, backlog: 7 },
      { source: "codex", state: "ready", indexedThrough: T0 + 5, backlog: 0 },
    ]);
    expect(Object.keys(out)).toEqual(["engine", "hits", "coverage"]);

    // Every source ready: one small object, with the newest time indexed across them.
    const ready = [
      source("claude-code", false, T0, 0),
      source("codex", false, T0 + 5, 0),
      source("bridge", false, null, 0),
    ];
    publish(ready);
    const compact = await h.call({ query: "zzzznothing" });
    expect(compact.coverage).toEqual({ state: "ready", sources: 3, indexedThrough: T0 + 5 });
    const full = JSON.stringify(readCoverage(h.db(), Date.now()));
    expect(JSON.stringify(compact.coverage).length).toBeLessThan(full.length / 3);
    // One source that cannot read some files brings the per-source list back.
    publish([...ready.slice(0, 2), { ...ready[2]!, unreadable: { count: 1, paths: ["/x"] } }]);
    expect((await h.call({ query: "zzzznothing" })).coverage).toEqual([
      { source: "claude-code", state: "ready", indexedThrough: T0, backlog: 0 },
      { source: "codex", state: "ready", indexedThrough: T0 + 5, backlog: 0 },
      { source: "bridge", state: "incomplete", indexedThrough: null, backlog: 0, unreadable: 1 },
    ]);
  });
});

describe("search_history ranking: titles", () => {
  let store: HistoryStore;
  let cleanup = () => {};
  beforeAll(async () => {
    const t = tempDir("recall-sh-title-");
    cleanup = t.cleanup;
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const titled = Array.from({ length: 12 }, (_, i) => ({
      key: `t${i}`,
      text: `the pelican note number ${i}`,
      at: T0 + 10_000 + i,
      session: S1,
      title: "Pelican resolver rewrite",
    }));
    seedDocuments(store.db, [
      ...titled,
      {
        key: "body",
        text: "the pelican resolver drops every retry",
        at: T0,
        session: S2,
        title: "Weekly chores",
      },
      { key: "other", text: "an unrelated heron", at: T0 + 1, session: S3 },
    ]);
  });
  afterAll(() => {
    store?.close();
    cleanup();
  });

  it("ranks a message holding every word above messages that match through their title", async () => {
    const out = JSON.parse(
      await runTool(
        createSearchHistoryTool(store.db, store.engine),
        { query: "pelican resolver", limit: 5 },
        {},
      ),
    ) as SearchHistoryOutput;
    expect(out.hits[0]!.id).toBe(`transcript:claude:${S2}:body`);
    // The title still lets a message match every word.
    expect(out.hits.filter((x) => x.relaxed !== true)).toHaveLength(5);
  });
});

describe("search_history project filter", () => {
  it("takes a folder inside a project as the project, as sources resolve a record's folder", async () => {
    const t = tempDir("recall-sh-project-");
    const root = path.join(t.dir, "repo");
    mkdirSync(path.join(root, ".git"), { recursive: true });
    mkdirSync(path.join(root, "packages", "ui"), { recursive: true });
    const store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    try {
      seedDocuments(store.db, [{ key: "p1", text: "the marmot build", at: T0, project: root, session: S1 }]);
      const tool = createSearchHistoryTool(store.db, store.engine);
      const found = async (project: string) =>
        (
          JSON.parse(
            await runTool(tool, { query: "marmot", filters: { project } }, {}),
          ) as SearchHistoryOutput
        ).hits.length;
      expect(await found(root)).toBe(1);
      expect(await found(`${root}/packages/ui/`)).toBe(1);
      expect(await found(path.join(t.dir, "elsewhere"))).toBe(0);
    } finally {
      store.close();
      t.cleanup();
    }
  });
});

describe("search_history on the plain engine (forced)", () => {
  const h = harness("plain");

  it("answers with engine plain, AND substring semantics, newest first", async () => {
    const out = await h.call({ query: "flaming migrat", limit: 50 });
    expect(out.engine).toBe("plain");
    const strict = out.hits.filter((x) => !x.relaxed);
    // Substrings match inside words ("flaming" in "flamingo"), and both are required.
    expect(strict.map((x) => x.id)).toEqual([
      "decision:db-choice@3",
      "run:deploy-2026.log#2048",
      "message:42",
      `transcript:codex:${S2}:a2`,
      `transcript:claude:${S1}:a1`,
    ]);
    const ats = strict.map((x) => x.at);
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
  });

  it("folds case and diacritics, keeps filters, bounds snippets", async () => {
    const out = await h.call({ query: "FLÁMINGO BÚDGET" });
    expect(out.hits.filter((x) => !x.relaxed).map((x) => x.id)).toEqual([`transcript:opencode:${S3}:a3`]);
    const alpha = await h.call({ query: "flamingo", filters: { project: "/p/alpha", agent: "claude" } });
    expect(alpha.hits.map((x) => x.id)).toEqual([`transcript:claude:${S1}:a1`]);
    const long = await h.call({ query: "pelican" });
    expect(Array.from(long.hits[0]!.snippet).length).toBeLessThanOrEqual(320);
    const alias = await h.call({ query: "flamingo", filters: { session: "feature-x" } });
    expect(alias.hits.map((x) => x.session)).toEqual([S1]);
  });
});

describe("recall search (CLI) over the same index", () => {
  const h = harness("fts5");

  it("takes every filter as a flag and prints exactly the tool's JSON with --json", async () => {
    const home = path.dirname(h.db().name);
    const env = { RECALL_HOME: home };
    const filters = {
      project: "/p/alpha",
      session: "feature-x",
      agent: "claude",
      kind: "transcript",
      since: "2026-01-01T00:00:00Z",
      until: String(T0 + 1000),
    };
    const r = runCli(
      [
        "search",
        "flamingo",
        "plan",
        "--project",
        filters.project,
        "--session",
        filters.session,
        "--agent",
        filters.agent,
        "--kind",
        filters.kind,
        "--since",
        filters.since,
        "--until",
        filters.until,
        "--limit",
        "5",
        "--json",
      ],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as SearchHistoryOutput;
    const direct = await h.call({ query: "flamingo plan", filters, limit: 5 });
    expect(printed).toEqual(direct);
    expect(printed.hits.map((x) => x.id)).toEqual([`transcript:claude:${S1}:a1`]);
    const job = JSON.parse(
      runCli(["search", "flamingo", "--job", "deploy-job", "--kind", "run", "--json"], env).stdout,
    ) as SearchHistoryOutput;
    expect(job.hits.map((x) => x.id)).toEqual(["run:deploy-2026.log#2048"]);

    const human = runCli(["search", "flamingo", "plan", "--project", "/p/alpha"], env);
    expect(human.stdout).toContain(`transcript:claude:${S1}:a1`);
    expect(human.stdout).toContain("«flamingo»");
    // A bare name is the end of an indexed project's path; none is a usage error, not an empty search.
    const named = runCli(["search", "flamingo", "plan", "--project", "alpha"], env);
    expect(named.stdout).toContain(`transcript:claude:${S1}:a1`);
    const unknown = runCli(["search", "flamingo", "--project", "gamma-nowhere"], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(
      /^recall: --project: no folder .* and no indexed project ends with gamma-nowhere\n$/,
    );
    const bad = runCli(["search", "flamingo", "--since", "last tuesday"], env);
    // A flag's mistake is a usage error naming the flag, not the tool's field.
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("recall: --since: must be epoch milliseconds or ISO 8601 with a timezone\n");
  });
});
