/**
 * The HTTP API on a real loopback server over a real demo index: the guard (Host, Origin, login
 * cookie) runs before any work, query parameters are strict, and the answers are the tools' own.
 */
import Database from "better-sqlite3";
import { existsSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../src/audit/audit-log.js";
import { startHttpServer, type RunningHttpServer } from "../src/http/server.js";
import { createHttpServices } from "../src/app/http-services.js";
import type { HttpServices } from "../src/http/route.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import { runTool } from "../src/tools/run.js";
import { createSearchHistoryTool } from "../src/tools/search-history.js";
import type { Answerer } from "../src/answer/index.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { httpRequest, login } from "./helpers/http.js";
import { documentRows } from "./helpers/document-text.js";

let demo: DemoHome;
let store: HistoryStore;
let services: HttpServices;
let server: RunningHttpServer;
let cookie = "";
let home = "";

const auditFile = () => path.join(home, AUDIT_FILE);
const auditSize = () => (existsSync(auditFile()) ? statSync(auditFile()).size : 0);
const get = (p: string, headers: Record<string, string> = {}) =>
  httpRequest(server.port, p, { headers: { Cookie: cookie, ...headers } });
const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

beforeAll(async () => {
  demo = await createDemoHome({ seed: 31, messages: 500 });
  home = demo.env.RECALL_HOME!;
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);
  store = await openHistoryStore({ home, projectionVersion: PROJECTION_VERSION, readonly: true });
  services = createHttpServices(store.db, store.engine, home, demo.env.RECALL_BRIDGE_DIR!);
  server = await startHttpServer({ services, port: 0 });
});

afterAll(async () => {
  await server?.close();
  store?.close();
  demo?.cleanup();
});

describe("guard: login, Host and Origin before any work", () => {
  it("answers 403 without the cookie, and no search runs (the audit log is unchanged)", async () => {
    const before = auditSize();
    for (const p of ["/api/search?q=decision", "/api/history/transcript%3Aa%3Ab", "/api/status", "/"]) {
      const r = await httpRequest(server.port, p);
      expect(r.status, p).toBe(403);
      expect(json(r.body).error).toMatch(/not logged in/);
    }
    const wrong = await httpRequest(server.port, "/api/search?q=decision", {
      headers: { Cookie: `${`recall_ui_${server.port}`}=forged` },
    });
    expect(wrong.status).toBe(403);
    expect(auditSize()).toBe(before);
  });

  it("logs in once with the token: HttpOnly SameSite=Strict cookie, redirect without the token", async () => {
    const bad = await httpRequest(server.port, "/?token=nope");
    expect(bad.status).toBe(403);
    const url = new URL(server.loginUrl);
    const token = url.searchParams.get("token")!;
    // A HEAD (a link checker, `curl -I`) does not spend it.
    const head = await httpRequest(server.port, `/?token=${token}`, { method: "HEAD" });
    expect([head.status, head.headers["set-cookie"]]).toEqual([204, undefined]);
    const first = await httpRequest(server.port, `/?message=m1&token=${token}&q=x`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/?message=m1&q=x");
    const setCookie = (first.headers["set-cookie"] ?? [])[0]!;
    expect(setCookie).toMatch(new RegExp(`^recall_ui_${server.port}=[A-Za-z0-9_-]{40,};`));
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    // A session cookie: closing the browser ends the login (see README on cookies and ports).
    expect(setCookie).not.toMatch(/Max-Age|Expires/i);
    cookie = setCookie.split(";")[0]!;
    // The token is spent: a second visit cannot log in again.
    const again = await httpRequest(server.port, `/?token=${token}`);
    expect(again.status).toBe(403);
    expect(again.body).toMatch(/restart `recall serve` for a new one/);
    expect(again.headers["set-cookie"]).toBeUndefined();
    await expect(login(server.loginUrl)).rejects.toThrow(/403/);
    // A browser that is already logged in and opens the link again is only redirected.
    const reopened = await get(`/?token=${token}`);
    expect(reopened.status).toBe(303);
    expect(reopened.headers.location).toBe("/");
    expect(reopened.headers["set-cookie"]).toBeUndefined();
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
  });

  it("refuses a foreign Host header (DNS rebinding) even with the cookie", async () => {
    for (const host of [
      `evil.example:${server.port}`,
      "127.0.0.1",
      `127.0.0.1:${server.port + 1}`,
      "localhost",
    ]) {
      const r = await get("/api/status", { Host: host });
      expect(r.status, host).toBe(403);
      expect(json(r.body).error).toBe("forbidden host");
    }
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) {
      expect((await get("/api/status", { Host: host })).status, host).toBe(200);
    }
  });

  it("serves a browser only its own pages' requests: another port's page is refused, even on GET", async () => {
    for (const site of ["same-site", "cross-site"]) {
      const r = await get("/api/search?q=flamingo&answer=true", { "Sec-Fetch-Site": site });
      expect(r.status, site).toBe(403);
      expect(json(r.body).error).toMatch(/another site or port/);
    }
    for (const site of ["same-origin", "none"])
      expect((await get("/api/status", { "Sec-Fetch-Site": site })).status, site).toBe(200);
  });

  it("checks Origin on anything that is not GET", async () => {
    const post = (headers: Record<string, string>) =>
      httpRequest(server.port, "/api/search?q=decision", {
        method: "POST",
        headers: { Cookie: cookie, ...headers },
      });
    expect((await post({})).status).toBe(403);
    expect((await post({ Origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ Origin: `http://localhost:${server.port + 1}` })).status).toBe(403);
    // The right origin passes the guard; no route takes POST.
    const wrong = await post({ Origin: `http://127.0.0.1:${server.port}` });
    expect(wrong.status).toBe(405);
    expect(wrong.headers["allow"]).toBe("GET, HEAD");
  });

  it("answers 400 to a path another authority could be read from, logged in or not", async () => {
    // URL parsing reads a backslash as "/": "/\evil.com/api/status" would name the host evil.com.
    for (const p of ["/\\evil.com/api/status", "/\\a:b", "/\\:99999", "/api\\status"]) {
      for (const headers of [{ Cookie: cookie }, {}] as Record<string, string>[]) {
        const r = await httpRequest(server.port, p, { headers });
        expect(r.status, p).toBe(400);
        expect(json(r.body).error).toBe("bad request");
      }
    }
    // A backslash in the query is just text (a Windows path searched for).
    expect((await get("/api/search?q=C:\\Users\\decision")).status).toBe(200);
  });
});

describe("GET /api/search", () => {
  it("is search_history's JSON for the same query, filters, limit and answer", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["q=decision", { query: "decision" }],
      ["q=decision%20cache&limit=3", { query: "decision cache", limit: 3 }],
      [
        "q=decision&agent=claude&kind=transcript",
        { query: "decision", filters: { agent: "claude", kind: "transcript" } },
      ],
      [
        `q=decision&since=2020-01-01T00:00:00Z&until=${Date.now()}`,
        { query: "decision", filters: { since: "2020-01-01T00:00:00Z", until: Date.now() } },
      ],
      ["q=decision&answer=true&limit=2", { query: "decision", answer: true, limit: 2 }],
      ["q=decision&answer=false", { query: "decision", answer: false }],
    ];
    for (const [query, args] of cases) {
      const r = await get(`/api/search?${query}`);
      expect(r.status, query).toBe(200);
      expect(r.headers["content-type"]).toMatch(/application\/json/);
      const tool = await runTool(services.tools.searchHistory, args, {});
      expect(JSON.parse(r.body), query).toEqual(JSON.parse(tool));
    }
    const hits = (json((await get("/api/search?q=decision")).body).hits as unknown[]).length;
    expect(hits).toBeGreaterThan(0);
  });

  it("answers 400 {error} naming an unknown, repeated or invalid parameter", async () => {
    const cases: [string, RegExp][] = [
      ["q=decision&foo=1", /^foo: unknown parameter$/],
      ["q=decision&filters=x", /^filters: unknown parameter$/],
      ["q=decision&query=x", /^query: unknown parameter$/],
      ["q=decision&q=cache", /^q: must occur at most once$/],
      ["q=decision&limit=2&limit=3", /^limit: must occur at most once$/],
      ["q=decision&agent=claude&agent=codex", /^agent: must occur at most once$/],
      ["q=", /^q: /],
      ["limit=2", /^q: /],
      ["q=%20%20", /^q: /],
      ["q=decision&limit=abc", /^limit: /],
      ["q=decision&limit=0", /^limit: /],
      ["q=decision&limit=51", /^limit: /],
      ["q=decision&limit=2.5", /^limit: /],
      ["q=decision&answer=yes", /^answer: /],
      ["q=decision&answer=TRUE", /^answer: /],
      ["q=decision&answer=1", /^answer: /],
      ["q=decision&agent=gpt", /^agent: /],
      ["q=decision&kind=email", /^kind: /],
      ["q=decision&since=yesterday", /^since: /],
      ["q=decision&until=2024-01-01T00:00:00", /^until: /],
      ["q=decision&since=2025-01-02T00:00:00Z&until=2025-01-01T00:00:00Z", /^since: /],
      ["q=decision&project=", /^project: /],
    ];
    for (const [query, message] of cases) {
      const r = await get(`/api/search?${query}`);
      expect(r.status, query).toBe(400);
      const body = json(r.body);
      expect(Object.keys(body), query).toEqual(["error"]);
      expect(body.error, query).toMatch(message);
      expect(r.body, query).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
  });

  it("keeps its own content-free audit records (surface http, never the query)", async () => {
    const marker = `httpmarker${Date.now()}`;
    await get(`/api/search?q=${marker}`);
    await get(`/api/search?q=${marker}&limit=x`);
    const lines = readFileSync(auditFile(), "utf8").trim().split("\n");
    const last = lines.slice(-2).map((l) => JSON.parse(l) as { surface: string; tool: string; ok: boolean });
    expect(last.map((r) => [r.surface, r.tool])).toEqual([
      ["http", "search_history"],
      ["http", "search_history"],
    ]);
    expect(readFileSync(auditFile(), "utf8")).not.toContain(marker);
  });

  it("stops an answer's model run when the client goes away before the reply", async () => {
    let seen: AbortSignal | undefined;
    const answerer: Answerer = (_question, _hits, signal) => {
      seen = signal;
      return new Promise((resolve) =>
        signal?.addEventListener("abort", () => resolve({ text: "", agent: null, model: null, sources: [] })),
      );
    };
    const own = await startHttpServer({
      services: {
        ...services,
        tools: {
          ...services.tools,
          searchHistory: createSearchHistoryTool(store.db, store.engine, { answerer }),
        },
      },
      port: 0,
    });
    try {
      const ownCookie = await login(own.loginUrl);
      const req = request({
        host: "127.0.0.1",
        port: own.port,
        path: "/api/search?q=decision&answer=true",
        headers: { Host: `127.0.0.1:${own.port}`, Cookie: ownCookie },
        agent: false,
      });
      req.on("error", () => {}); // the socket is destroyed below on purpose
      req.end();
      const deadline = Date.now() + 5_000;
      while (!seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(seen?.aborted).toBe(false);
      req.destroy();
      while (!seen!.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(seen!.aborted).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe("GET /api/history/<id>", () => {
  it("returns the bounded indexed document with exactly the spec's fields", async () => {
    const hit = (
      json((await get("/api/search?q=decision&limit=1")).body).hits as { id: string; sourceLink: string }[]
    )[0]!;
    const r = await get(hit.sourceLink);
    expect(r.status).toBe(200);
    const doc = json(r.body);
    expect(Object.keys(doc).sort()).toEqual(
      ["id", "kind", "agent", "at", "body", "link", "message", "job", "run", "session", "cursor"].sort(),
    );
    expect(doc.id).toBe(hit.id);
    expect(typeof doc.body).toBe("string");
    expect(Buffer.byteLength(doc.body as string)).toBeLessThanOrEqual(16 * 1024);
    expect(String(doc.link).startsWith("/")).toBe(true);
  });

  it("answers 404 for an unknown id and 400 for a malformed one; never reads a path", async () => {
    for (const id of ["transcript:claude:nope:nope", "message:42", "chat:dyad:1:999999"]) {
      const r = await get(`/api/history/${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(404);
      expect(Object.keys(json(r.body))).toEqual(["error"]);
    }
    const malformed = [
      "nope",
      encodeURIComponent("/etc/passwd"),
      encodeURIComponent("../../history.db"),
      encodeURIComponent("transcript:"),
      encodeURIComponent("file:/etc/passwd"),
      encodeURIComponent("transcript:a\nb"),
      "%E0%A4%A",
      encodeURIComponent(`message:${"x".repeat(1200)}`),
    ];
    for (const raw of malformed) {
      const r = await get(`/api/history/${raw}`);
      expect(r.status, raw).toBe(400);
      expect(Object.keys(json(r.body))).toEqual(["error"]);
    }
    // A literal path below the route is no route at all.
    expect((await get("/api/history/a/b")).status).toBe(404);
    expect((await get("/api/history/transcript%3Aa?x=1")).status).toBe(400);
  });
});

describe("GET /api/conversations/<id>", () => {
  const all = async (conversation: string) => {
    const records: string[] = [];
    let after: string | null = null;
    do {
      const page = JSON.parse(
        await runTool(
          services.tools.getConversation,
          { id: conversation, limit: 100, ...(after ? { after } : {}) },
          {},
        ),
      ) as { records: { id: string }[]; next: string | null };
      records.push(...page.records.map((r) => r.id));
      after = page.next;
    } while (after);
    return records;
  };

  it("is get_conversation's JSON, page by page with after", async () => {
    const hit = (
      json((await get("/api/search?q=decision&limit=1&kind=transcript")).body).hits as {
        conversation: string;
      }[]
    )[0]!;
    let after: string | null = null;
    let pages = 0;
    do {
      const q = new URLSearchParams({ limit: "3", ...(after ? { after } : {}) });
      const r = await get(`/api/conversations/${encodeURIComponent(hit.conversation)}?${q}`);
      expect(r.status).toBe(200);
      const tool = await runTool(
        services.tools.getConversation,
        { id: hit.conversation, limit: 3, ...(after ? { after } : {}) },
        {},
      );
      expect(JSON.parse(r.body)).toEqual(JSON.parse(tool));
      after = (JSON.parse(r.body) as { next: string | null }).next;
      pages += 1;
    } while (after && pages < 5);
    expect(pages).toBeGreaterThan(1);
  });

  it("opens a hit in place and pages both ways without skipping a record", async () => {
    const hits = json((await get("/api/search?q=decision&limit=20")).body).hits as {
      id: string;
      conversation: string;
    }[];
    let checked = 0;
    for (const hit of hits.slice(0, 6)) {
      const full = await all(hit.conversation);
      const base = `/api/conversations/${encodeURIComponent(hit.conversation)}`;
      const around = JSON.parse(
        (await get(`${base}?${new URLSearchParams({ around: hit.id, limit: "4" })}`)).body,
      ) as { records: { id: string }[]; prev: string | null; next: string | null; focus: string };
      expect(around.focus).toBe(hit.id);
      const seen = around.records.map((r) => r.id);
      if (full.includes(hit.id)) expect(seen).toContain(hit.id);
      let prev = around.prev;
      while (prev) {
        const page = JSON.parse(
          (await get(`${base}?${new URLSearchParams({ before: prev, limit: "3" })}`)).body,
        ) as {
          records: { id: string }[];
          prev: string | null;
        };
        seen.unshift(...page.records.map((r) => r.id));
        prev = page.prev;
      }
      let next = around.next;
      while (next) {
        const page = JSON.parse(
          (await get(`${base}?${new URLSearchParams({ after: next, limit: "3" })}`)).body,
        ) as {
          records: { id: string }[];
          next: string | null;
        };
        seen.push(...page.records.map((r) => r.id));
        next = page.next;
      }
      expect(seen).toEqual(full);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("answers 404 for an unknown conversation and 400 for bad parameters", async () => {
    expect((await get("/api/conversations/nope%3Anope")).status).toBe(404);
    const hit = (
      json((await get("/api/search?q=decision&limit=1&kind=transcript")).body).hits as {
        conversation: string;
      }[]
    )[0]!;
    const base = `/api/conversations/${encodeURIComponent(hit.conversation)}`;
    for (const q of [
      "limit=0",
      "limit=101",
      "limit=x",
      "after=%21%21",
      "foo=1",
      "limit=2&limit=3",
      "after=a&before=b",
      "around=nope",
    ]) {
      const r = await get(`${base}?${q}`);
      expect(r.status, q).toBe(400);
      expect(Object.keys(json(r.body))).toEqual(["error"]);
    }
  });
});

describe("GET /api/status, /api/consulted, /api/locate", () => {
  it("reports coverage per source", async () => {
    const status = json((await get("/api/status")).body) as {
      coverage: { source: string; state: string }[];
      indexing: boolean;
    };
    expect(status.coverage.map((c) => c.source)).toEqual(
      expect.arrayContaining(["claude-code", "codex", "dyad", "opencode"]),
    );
    expect(typeof status.indexing).toBe("boolean");
  });

  it("says a rebuild is under way only while its writer still publishes", async () => {
    const writer = new Database(path.join(home, "history.db"));
    const row = writer
      .prepare("SELECT value FROM recall_meta WHERE key = 'coverage'")
      .pluck()
      .get() as string;
    const publish = (publishedAt: number) =>
      writer
        .prepare("UPDATE recall_meta SET value = ? WHERE key = 'coverage'")
        .run(JSON.stringify({ ...JSON.parse(row), rebuilding: true, publishedAt }));
    const rebuilding = async () => json((await get("/api/status")).body).rebuilding;
    try {
      publish(Date.now());
      expect(await rebuilding()).toBe(true);
      publish(Date.now() - 60_000); // a rebuild whose process was killed
      expect(await rebuilding()).toBe(false);
    } finally {
      writer.prepare("UPDATE recall_meta SET value = ? WHERE key = 'coverage'").run(row);
      writer.close();
    }
  });

  it("lists recent tool calls without any query text", async () => {
    const r = await get("/api/consulted?limit=5");
    expect(r.status).toBe(200);
    const calls = json(r.body).calls as Record<string, unknown>[];
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(Object.keys(call).sort()).toEqual([
        "at",
        "durationMs",
        "ok",
        "results",
        "returned",
        "surface",
        "tool",
      ]);
    }
    expect((await get("/api/consulted?limit=0")).status).toBe(400);
    expect((await get("/api/consulted?q=x")).status).toBe(400);
  });

  it("resolves the navigation keys of a hit's link, a sub-agent's child session included", async () => {
    const db = store.db;
    const sub = db
      .prepare(
        `SELECT d.hit_id AS id FROM recall_documents d JOIN recall_conversations c ON c.id = d.conversation
         WHERE c.parent IS NOT NULL AND d.agent = 'claude' AND d.cursor IS NOT NULL LIMIT 1`,
      )
      .get() as { id: string } | undefined;
    const main = db
      .prepare(
        `SELECT d.hit_id AS id FROM recall_documents d JOIN recall_conversations c ON c.id = d.conversation
         WHERE c.parent IS NULL AND d.kind = 'transcript' AND d.cursor IS NOT NULL LIMIT 1`,
      )
      .get() as { id: string };
    for (const id of [main.id, ...(sub ? [sub.id] : [])]) {
      const doc = json((await get(`/api/history/${encodeURIComponent(id)}`)).body) as { link: string };
      const link = new URL(doc.link, "http://x");
      if (id === sub?.id) expect(link.searchParams.get("child")).toMatch(/^agent-/);
      const r = await get(`/api/locate?${link.searchParams}`);
      expect(r.status, doc.link).toBe(200);
      const target = json(r.body) as { conversation: string; focus: string };
      expect(target.focus).toBe(id);
      const conv = db.prepare("SELECT conversation FROM recall_documents WHERE hit_id = ?").get(id) as {
        conversation: string;
      };
      expect(target.conversation).toBe(conv.conversation);
    }
    expect(sub, "the demo corpus has Claude sub-agent transcripts").toBeDefined();
    expect((await get("/api/locate?session=nope&agent=claude&from=1")).status).toBe(404);
    expect((await get("/api/locate?message=nope")).status).toBe(404);
    expect((await get("/api/locate?session=x")).status).toBe(400);
    // A miss while sources are still being read says so: it may mean "not indexed yet".
    const writer = new Database(store.file);
    const key = "coverage";
    const saved = writer.prepare("SELECT value FROM recall_meta WHERE key = ?").pluck().get(key) as string;
    const published = JSON.parse(saved) as {
      publishedAt: number;
      sources: { indexing: boolean; backlog: number }[];
    };
    published.publishedAt = Date.now();
    published.sources[0]!.indexing = true;
    published.sources[0]!.backlog = 7;
    writer.prepare("UPDATE recall_meta SET value = ? WHERE key = ?").run(JSON.stringify(published), key);
    const early = await get("/api/locate?message=nope");
    writer.prepare("UPDATE recall_meta SET value = ? WHERE key = ?").run(saved, key);
    writer.close();
    expect(early.status).toBe(404);
    expect(json(early.body).error).toMatch(
      /^message: no indexed message has this id; the index is still being built \(\S+ backlog 7\): try again shortly$/,
    );
    expect(json((await get("/api/locate?message=nope")).body).error).toBe(
      "message: no indexed message has this id",
    );
    const badAgent = await get("/api/locate?session=x&agent=bogus");
    expect([badAgent.status, json(badAgent.body).error]).toEqual([
      400,
      expect.stringMatching(/^agent: must be one of/),
    ]);
    const badRecord = await get("/api/locate?conversation=x&record=garbage");
    expect([badRecord.status, json(badRecord.body).error]).toEqual([
      400,
      expect.stringMatching(/^record: not a hit id/),
    ]);
    // A record of another conversation (or none) is not opened in this one.
    const [a, b] = db
      .prepare(
        `SELECT conversation, hit_id AS id FROM recall_documents WHERE conversation IS NOT NULL
         GROUP BY conversation LIMIT 2`,
      )
      .all() as { conversation: string; id: string }[];
    const at = (c: string, r: string) =>
      get(`/api/locate?conversation=${encodeURIComponent(c)}&record=${encodeURIComponent(r)}`);
    expect((await at(a!.conversation, a!.id)).status).toBe(200);
    const foreign = await at(a!.conversation, b!.id);
    expect([foreign.status, json(foreign.body).error]).toEqual([404, "record: not in this conversation"]);
    // Empty values and two kinds of key are the caller's mistake, named.
    for (const [q, error] of [
      ["message=", "message: must not be empty"],
      ["conversation=%20", "conversation: must not be empty"],
      ["session=&agent=claude", "session: must not be empty"],
      [
        `message=x&conversation=${encodeURIComponent(a!.conversation)}`,
        "message, conversation: give only one of them",
      ],
    ] as const) {
      const r = await get(`/api/locate?${q}`);
      expect([r.status, json(r.body).error], q).toEqual([400, error]);
    }
  });
});

describe("GET /api/runs/<run>?from= and /api/decisions/<topic>/history (where bridge hits link)", () => {
  /** A hit of the given kind from the demo's bridge store, found through search_history. */
  const hitOf = async (kind: "run" | "decision") => {
    const { body } = documentRows(
      store.db,
      "d.id",
      "WHERE d.kind = ? AND d.hit_id NOT LIKE '%#meta' LIMIT 1",
      kind,
    )[0]!;
    const word = body.match(/[A-Za-z]{6,}/)![0];
    const out = JSON.parse(
      await runTool(services.tools.searchHistory, { query: word, filters: { kind }, limit: 1 }, {}),
    ) as { hits: { id: string; link: string }[] };
    return out.hits[0]!;
  };

  it("a run hit's link answers the log chunk from the hit's byte offset", async () => {
    const hit = await hitOf("run");
    expect(hit.link).toMatch(/^\/api\/runs\/[^/?]+\?from=\d+$/);
    const r = await get(hit.link);
    expect(r.status, r.body).toBe(200);
    const chunk = json(r.body) as { from: number; text: string; next: number | null };
    expect(String(chunk.from)).toBe(hit.link.split("from=")[1]);
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(chunk.text)).toBeLessThanOrEqual(64 * 1024);
    // Agents consulted names the run's conversation, which opens.
    const consulted = json((await get("/api/consulted?limit=1")).body) as { calls: { returned: string[] }[] };
    const [id] = consulted.calls[0]!.returned;
    expect(id).toMatch(/^run:.+\.log$/);
    expect((await get(`/api/conversations/${encodeURIComponent(id!)}`)).status).toBe(200);
  });

  it("a decision hit's link answers every revision of its topic", async () => {
    const hit = await hitOf("decision");
    expect(hit.link).toMatch(/^\/api\/decisions\/[^/]+\/history$/);
    const r = await get(hit.link);
    expect(r.status, r.body).toBe(200);
    const history = json(r.body) as { revisions: { id: string }[] };
    expect(history.revisions.map((v) => v.id)).toContain(hit.id);
  });

  it("answers 404 for unknown runs and topics, 400 for bad offsets and parameters, 403 without login", async () => {
    expect((await get("/api/runs/no-such-job-20260101T000000Z?from=0")).status).toBe(404);
    expect((await get("/api/runs/..%2F..%2Fhistory.db")).status).toBe(400);
    expect((await get("/api/decisions/no-such-topic/history")).status).toBe(404);
    const hit = await hitOf("run");
    const base = hit.link.split("?")[0]!;
    for (const bad of [`${base}?from=-1`, `${base}?from=x`, `${base}?from=1&from=2`, `${base}?at=1`]) {
      const r = await get(bad);
      expect(r.status, bad).toBe(400);
      expect(json(r.body).error).toBeTruthy();
    }
    expect((await httpRequest(server.port, hit.link)).status).toBe(403);
  });
});

// Last: it forgets part of the demo history, which the tests above read.
describe("bridge reads after `recall forget`", () => {
  it("a forgotten run and a forgotten decision revision are no longer served from the bridge store", async () => {
    const run = store.db
      .prepare("SELECT id, started_at AS at FROM recall_conversations WHERE kind = 'run' LIMIT 1")
      .get() as { id: string; at: number };
    const runLink = `/api/runs/${encodeURIComponent(run.id.slice("run:".length).replace(/\.log$/, ""))}?from=0`;
    expect((await get(runLink)).status).toBe(200);
    // A topic with revisions at two times: the first is forgotten, the second stays.
    const revisions = store.db
      .prepare(
        `SELECT conversation, record_key AS key, at FROM recall_records WHERE conversation IN (
           SELECT conversation FROM recall_records WHERE conversation LIKE 'decision:%'
           GROUP BY conversation HAVING count(DISTINCT at) > 1 LIMIT 1) ORDER BY at`,
      )
      .all() as { conversation: string; key: string; at: number }[];
    expect(revisions.length).toBeGreaterThan(1);
    const topic = revisions[0]!.conversation.slice("decision:".length);
    const idOf = (key: string) => `decision:${key.slice("d:".length)}`;
    const historyLink = `/api/decisions/${encodeURIComponent(topic)}/history`;
    const before = json((await get(historyLink)).body) as { revisions: { id: string }[] };
    expect(before.revisions.map((r) => r.id)).toContain(idOf(revisions[0]!.key));

    for (const at of [run.at, revisions[0]!.at]) {
      const forgot = runCli(["forget", "--since", String(at), "--until", String(at), "--yes"], demo.env);
      expect(forgot.status, forgot.stderr).toBe(0);
    }
    const gone = await get(runLink);
    // The same answer as for a run that never was: not even the log's size shows.
    expect(gone.status).toBe(404);
    expect(json(gone.body).error).toMatch(/^run \S+ not found$/);
    const past = await get(runLink.replace("from=0", "from=999999999"));
    expect([past.status, json(past.body).error]).toEqual([404, json(gone.body).error]);
    const after = json((await get(historyLink)).body) as { revisions: { id: string }[] };
    expect(after.revisions.map((r) => r.id)).not.toContain(idOf(revisions[0]!.key));
    expect(after.revisions.map((r) => r.id)).toContain(idOf(revisions.at(-1)!.key));
  });
});
