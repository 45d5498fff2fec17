/**
 * The dashboard's browsing routes over a real index of the demo corpus, served in process:
 * /api/recent, /api/projects, /api/activity, /api/family/<id>, /api/export/<id>, the consulted
 * feed's pages and error kinds, and the vendored libraries the page renders with.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../src/audit/audit-log.js";
import {
  NEWEST_START_SQL,
  PROJECTS_SQL,
  recentSql,
  SESSIONS_PER_DAY_SQL,
} from "../src/conversations/browse.js";
import { createHttpServices } from "../src/app/http-services.js";
import { startHttpServer, type RunningHttpServer } from "../src/http/server.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { httpRequest, login } from "./helpers/http.js";

let demo: DemoHome;
let store: HistoryStore;
let server: RunningHttpServer;
let cookie = "";

const get = (p: string) => httpRequest(server.port, p, { headers: { Cookie: cookie } });
const json = <T = Record<string, unknown>>(body: string) => JSON.parse(body) as T;

interface Summary {
  id: string;
  agent: string;
  project: string | null;
  title: string | null;
  firstPrompt: string | null;
  startedAt: number | null;
  updatedAt: number | null;
  records: number;
  parent: string | null;
  subAgents: number;
}

beforeAll(async () => {
  demo = await createDemoHome({ seed: 41, messages: 500 });
  const home = demo.env.RECALL_HOME!;
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);
  store = await openHistoryStore({ home, projectionVersion: PROJECTION_VERSION, readonly: true });
  const services = createHttpServices(store.db, store.engine, home, demo.env.RECALL_BRIDGE_DIR!);
  server = await startHttpServer({ services, port: 0 });
  cookie = await login(server.loginUrl);
});

afterAll(async () => {
  await server?.close();
  store?.close();
  demo?.cleanup();
});

const topLevel = () =>
  store.db
    .prepare(
      `SELECT id, agent, project, parent, next_ordinal AS records FROM recall_conversations
       WHERE parent IS NULL ORDER BY updated_at DESC, id`,
    )
    .all() as { id: string; agent: string; project: string | null; records: number }[];

describe("GET /api/recent", () => {
  it("pages top-level conversations, newest first, each with its label, size and sub-agent count", async () => {
    const expected = topLevel();
    expect(expected.length).toBeGreaterThan(10);
    const seen: Summary[] = [];
    for (let offset = 0; ; offset += 10) {
      const r = await get(`/api/recent?limit=10&offset=${offset}`);
      expect(r.status).toBe(200);
      const page = json<{ conversations: Summary[]; more: boolean }>(r.body);
      seen.push(...page.conversations);
      expect(page.more).toBe(offset + 10 < expected.length);
      if (!page.more) break;
    }
    expect(seen.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    expect(seen.map((c) => c.records)).toEqual(expected.map((c) => c.records));
    for (const c of seen) {
      expect(c.parent).toBeNull();
      const children = store.db
        .prepare("SELECT count(*) AS n FROM recall_conversations WHERE parent = ?")
        .get(c.id) as {
        n: number;
      };
      expect(c.subAgents, c.id).toBe(children.n);
      const first = store.db
        .prepare(
          "SELECT text FROM recall_records WHERE conversation = ? AND role = 'user' ORDER BY at, ordinal LIMIT 1",
        )
        .get(c.id) as { text: string } | undefined;
      // SQLite's substr counts characters, not UTF-16 units.
      expect(c.firstPrompt, c.id).toBe(first ? [...first.text].slice(0, 240).join("") : null);
    }
    expect(seen.some((c) => c.subAgents > 0)).toBe(true);
  });

  it("filters by project (exactly) and by agent, as search_history's agent filter does", async () => {
    const expected = topLevel();
    const project = expected.find((c) => c.project)!.project!;
    const byProject = json<{ conversations: Summary[] }>(
      (await get(`/api/recent?limit=100&project=${encodeURIComponent(project)}`)).body,
    );
    expect(byProject.conversations.map((c) => c.id)).toEqual(
      expected.filter((c) => c.project === project).map((c) => c.id),
    );
    const prefix = json<{ conversations: Summary[] }>(
      (await get(`/api/recent?project=${encodeURIComponent(project.slice(0, -1))}`)).body,
    );
    expect(prefix.conversations).toEqual([]);
    for (const agent of ["claude", "codex", "opencode", "other"]) {
      const out = json<{ conversations: Summary[] }>(
        (await get(`/api/recent?limit=100&agent=${agent}`)).body,
      );
      const wanted = expected.filter((c) =>
        agent === "other" ? !["claude", "codex", "opencode"].includes(c.agent) : c.agent === agent,
      );
      expect(
        out.conversations.map((c) => c.id),
        agent,
      ).toEqual(wanted.map((c) => c.id));
      expect(wanted.length, agent).toBeGreaterThan(0);
    }
  });

  it("refuses bad parameters with a 400 naming them", async () => {
    for (const [query, message] of [
      ["limit=0", /^limit: /],
      ["limit=101", /^limit: /],
      ["limit=x", /^limit: /],
      ["offset=-1", /^offset: /],
      ["agent=nobody", /^agent: /],
      ["project=", /^project: /],
      ["q=x", /^q: unknown parameter$/],
      ["agent=claude&agent=codex", /^agent: must occur at most once$/],
    ] as const) {
      const r = await get(`/api/recent?${query}`);
      expect(r.status, query).toBe(400);
      expect(json(r.body).error, query).toMatch(message);
    }
  });
});

describe("the landing page's reads", () => {
  it("read indexes, never every conversation (a 1M-message index holds some 50,000)", () => {
    const plan = (sql: string, ...params: unknown[]) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join(" | ");
    expect(plan(recentSql(["c.parent IS NULL", "1"]), 21, 0)).toMatch(
      /^SCAN c USING INDEX recall_conversations_recent\b/,
    );
    expect(plan(PROJECTS_SQL)).toMatch(
      /^SEARCH recall_conversations USING COVERING INDEX recall_conversations_projects\b/,
    );
    expect(plan(NEWEST_START_SQL)).toMatch(
      /^SEARCH recall_conversations USING COVERING INDEX recall_conversations_started\b/,
    );
    expect(plan(SESSIONS_PER_DAY_SQL, 0, 0)).toMatch(
      /^SEARCH recall_conversations USING COVERING INDEX recall_conversations_started \(started_at>\?\)/,
    );
    expect(
      plan(
        "SELECT parent, count(*) FROM recall_conversations WHERE parent IN (?, ?) GROUP BY parent",
        "a",
        "b",
      ),
    ).toMatch(/USING COVERING INDEX recall_conversations_parent\b/);
  });
});

describe("GET /api/projects and /api/activity", () => {
  it("counts every top-level conversation once per project and agent", async () => {
    const { projects } = json<{
      projects: { project: string; conversations: number; agents: Record<string, number> }[];
    }>((await get("/api/projects")).body);
    const expected = topLevel().filter((c) => c.project !== null);
    expect(projects.reduce((n, p) => n + p.conversations, 0)).toBe(expected.length);
    for (const p of projects) {
      const mine = expected.filter((c) => c.project === p.project);
      expect(p.conversations, p.project).toBe(mine.length);
      expect(Object.values(p.agents).reduce((n, v) => n + v, 0)).toBe(mine.length);
    }
    expect((await get("/api/projects?x=1")).status).toBe(400);
  });

  it("counts sessions per day and agent in the caller's time zone, up to the newest session", async () => {
    const rows = store.db
      .prepare(
        "SELECT started_at AS at, agent FROM recall_conversations WHERE parent IS NULL AND started_at IS NOT NULL",
      )
      .all() as { at: number; agent: string }[];
    const newest = Math.max(...rows.map((r) => r.at));
    for (const offset of [0, 330, -480]) {
      const out = json<{
        from: string;
        to: string;
        days: { day: string; agent: string; sessions: number }[];
      }>((await get(`/api/activity?days=366&utc_offset=${offset}`)).body);
      const shift = offset * 60_000;
      const day = (at: number) => new Date(at + shift).toISOString().slice(0, 10);
      expect(out.to).toBe(day(newest));
      const counts = new Map<string, number>();
      for (const r of rows) {
        if (day(r.at) < out.from) continue;
        const key = `${day(r.at)} ${r.agent}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const got = Object.fromEntries(out.days.map((d) => [`${d.day} ${d.agent}`, d.sessions]));
      expect(got, String(offset)).toEqual(Object.fromEntries(counts));
    }
    for (const query of ["days=0", "days=367", "utc_offset=900", "days=1.5"]) {
      expect((await get(`/api/activity?${query}`)).status, query).toBe(400);
    }
  });
});

describe("GET /api/family/<id> and /api/export/<id>", () => {
  it("names a sub-agent's parent and a parent's sub-agents; 404 for an unknown id", async () => {
    const child = store.db
      .prepare("SELECT id, parent FROM recall_conversations WHERE parent IS NOT NULL LIMIT 1")
      .get() as { id: string; parent: string };
    const family = json<{ conversation: Summary; parent: Summary | null; subAgents: Summary[] }>(
      (await get(`/api/family/${encodeURIComponent(child.id)}`)).body,
    );
    expect(family.conversation.id).toBe(child.id);
    expect(family.parent?.id).toBe(child.parent);
    const up = json<{ subAgents: Summary[] }>(
      (await get(`/api/family/${encodeURIComponent(child.parent)}`)).body,
    );
    expect(up.subAgents.map((s) => s.id)).toContain(child.id);
    const missing = await get("/api/family/claude%3Anope");
    expect(missing.status).toBe(404);
    expect(json(missing.body).error).toBe("id: no retained conversation has this id");
  });

  it("exports a conversation as a markdown download holding every record, and audits only its id", async () => {
    const conv = topLevel().find((c) => c.agent === "claude" && c.records > 5)!;
    const r = await get(`/api/export/${encodeURIComponent(conv.id)}`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/markdown; charset=utf-8");
    expect(r.headers["content-disposition"]).toMatch(
      /^attachment; filename="recall-claude-[A-Za-z0-9._-]+\.md"$/,
    );
    expect(r.body.startsWith("# ")).toBe(true);
    const records = store.db
      .prepare(
        "SELECT text FROM recall_records WHERE conversation = ? AND role <> 'context' ORDER BY at, ordinal",
      )
      .all(conv.id) as { text: string }[];
    expect(records.length).toBeGreaterThan(1);
    expect(r.body.match(/^## (User|Assistant|Tool|System) · /gm)?.length).toBe(records.length);
    for (const { text } of records) expect(r.body).toContain(text.slice(0, 200));
    const audit = readFileSync(path.join(demo.env.RECALL_HOME!, AUDIT_FILE), "utf8").trim().split("\n");
    const line = JSON.parse(audit.at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ surface: "http", tool: "export_markdown", ok: true, returned: [conv.id] });
    expect(audit.at(-1)).not.toContain(records[0]!.text.slice(0, 40));

    const missing = await get("/api/export/claude%3Anope");
    expect(missing.status).toBe(404);
    const failed = JSON.parse(
      readFileSync(path.join(demo.env.RECALL_HOME!, AUDIT_FILE), "utf8").trim().split("\n").at(-1)!,
    ) as Record<string, unknown>;
    expect(failed).toMatchObject({ tool: "export_markdown", ok: false, errorKind: "NotFound", returned: [] });
  });
});

describe("GET /api/consulted pages and error kinds; the vendored libraries", () => {
  it("pages the log newest first, and names a failed call's kind when asked", async () => {
    for (const q of ["decision", "cache", "session"])
      expect((await get(`/api/search?q=${q}`)).status).toBe(200);
    const all = json<{ calls: { at: number; tool: string; ok: boolean }[]; more: boolean }>(
      (await get("/api/consulted?limit=200")).body,
    );
    expect(all.calls.length).toBeGreaterThan(3);
    const first = json<{ calls: unknown[]; more: boolean }>((await get("/api/consulted?limit=2")).body);
    const second = json<{ calls: unknown[]; more: boolean }>(
      (await get("/api/consulted?limit=2&offset=2")).body,
    );
    // Each read is itself an http call appended to the log: compare what was there before.
    expect(first.more).toBe(true);
    expect(second.calls.length).toBe(2);
    const kinds = json<{ calls: { ok: boolean; errorKind: string | null; surface: string }[] }>(
      (await get("/api/consulted?limit=200&error_kinds=true")).body,
    );
    const failed = kinds.calls.find((c) => !c.ok)!;
    expect(failed.errorKind).toBe("NotFound");
    expect(kinds.calls.filter((c) => c.ok).every((c) => c.errorKind === null)).toBe(true);
    const noHttp = json<{ calls: { surface: string }[] }>((await get("/api/consulted?http=false")).body);
    expect(noHttp.calls.every((c) => c.surface !== "http")).toBe(true);
    for (const query of ["offset=-1", "http=maybe", "error_kinds=1"]) {
      expect((await get(`/api/consulted?${query}`)).status, query).toBe(400);
    }
  });

  it("serves markdown-it and DOMPurify from node_modules as ES modules", async () => {
    for (const name of ["markdown-it.mjs", "purify.mjs"]) {
      const r = await get(`/assets/vendor/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.headers["content-type"]).toBe("text/javascript; charset=utf-8");
      expect(r.body).toMatch(/export\s*\{[^}]*as default\s*\}/);
    }
    expect((await get("/assets/vendor/other.mjs")).status).toBe(404);
    expect(existsSync(path.join(demo.env.RECALL_HOME!, AUDIT_FILE))).toBe(true);
  });
});
