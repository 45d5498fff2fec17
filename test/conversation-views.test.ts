/**
 * Conversation views end to end, over a generated Claude Code session with injected context
 * records (test/helpers/claude-context.ts): get_conversation over a real `recall mcp` (opened at a
 * hit with `around`, paged outward with `prev`/`next`), `/api/conversations` on a real loopback
 * server and `recall conversation` as a real process. Context records are left out of every
 * view unless asked for (include_context / --include-context).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer, type RunningHttpServer } from "../src/http/server.js";
import { createHttpServices } from "../src/app/http-services.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import { contextSession, type ContextSession } from "./helpers/claude-context.js";
import { runCli } from "./helpers/cli.js";
import { httpRequest, login } from "./helpers/http.js";
import { connectMcp } from "./helpers/mcp.js";
import { REAL_FIXTURES, sharedAvailable } from "./helpers/shared.js";
import { tempDir } from "./helpers/tmp.js";
import { BASE_TIME } from "./sources-lines.js";

const SESSION = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const OTHER = "7a1b2c3d-4e5f-4a6b-8c7d-000000000002";
const ID = `claude:${SESSION}`;
const HIT_TEXT = "the pelican rollback decision";

interface Page {
  records: { id: string; role: string; text: string }[];
  next: string | null;
  prev?: string | null;
  focus?: string;
}

/** A temporary HOME with the CLIs' folders and its own RECALL_HOME, as test/sources-cli.test.ts sets it up. */
function isolatedEnv(dir: string): { home: string; env: Record<string, string> } {
  const home = path.join(dir, "home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { HOME: home, RECALL_HOME: path.join(dir, "recall") };
  // Unset the CLIs' variables (an empty CLAUDE_CONFIG_DIR would name the current folder).
  for (const name of ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "OPENCODE_DB"]) delete env[name];
  return { home, env };
}

let cleanup = () => {};
let env: Record<string, string> = {};
let session: ContextSession;
let hitId = "";
let otherHit = "";
let client: Client | null = null;

beforeAll(async () => {
  const t = tempDir("recall-conversation-views-");
  cleanup = t.cleanup;
  const isolated = isolatedEnv(t.dir);
  env = isolated.env;
  const dir = path.join(isolated.home, ".claude", "projects", "-p");
  mkdirSync(dir, { recursive: true });
  session = contextSession(SESSION, 30, 17, HIT_TEXT);
  writeFileSync(path.join(dir, `${SESSION}.jsonl`), session.text);
  const other = contextSession(OTHER, 4, 2, "a heron elsewhere", BASE_TIME + 3_600_000);
  writeFileSync(path.join(dir, `${OTHER}.jsonl`), other.text);
  const indexed = runCli(["index"], env);
  expect(indexed.status, indexed.stderr).toBe(0);
  hitId = `transcript:claude:${SESSION}:t17`;
  otherHit = `transcript:claude:${OTHER}:t2`;
  client = (await connectMcp(env, { name: "conversation-views-test" })).client;
});

afterAll(async () => {
  await client?.close();
  cleanup();
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const isContext = (r: { role: string; text: string }) =>
  r.role === "context" || r.text.startsWith("[context");
/** What a user or assistant said at turn i (every turn record's text). */
const turnText = (i: number) => (i === 17 ? HIT_TEXT : `routine turn number ${i}`);
const TURNS = Array.from({ length: 30 }, (_, i) => turnText(i));

describe("get_conversation over MCP", () => {
  const call = async (args: Record<string, unknown>) => {
    const result = await client!.callTool({ name: "get_conversation", arguments: args });
    return { isError: result.isError === true, out: JSON.parse(text(result)) as Page & { error?: never } };
  };
  const error = async (args: Record<string, unknown>) => {
    const result = await client!.callTool({ name: "get_conversation", arguments: args });
    expect(result.isError).toBe(true);
    return (JSON.parse(text(result)) as { error: { kind: string; message: string } }).error;
  };

  it("describes around: hit.id and include_context in its schema", async () => {
    const { tools } = await client!.listTools();
    const tool = tools.find((t) => t.name === "get_conversation")!;
    expect(tool.description).toMatch(/around: hit\.id/);
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["id", "after", "before", "around", "limit", "include_context"]),
    );
    expect(tool.inputSchema.required).toEqual(["id"]);
  });

  it("opens at a search hit with around and pages outward with prev (as before) and next (as after)", async () => {
    const found = JSON.parse(
      text(await client!.callTool({ name: "search_history", arguments: { query: "pelican rollback" } })),
    ) as { hits: { id: string; conversation: string }[] };
    const hit = found.hits[0]!;
    expect(hit).toMatchObject({ id: hitId, conversation: ID });

    const { isError, out: window } = await call({ id: hit.conversation, around: hit.id, limit: 6 });
    expect(isError).toBe(false);
    expect(window.focus).toBe(hit.id);
    expect(window.records.map((r) => r.text)).toEqual(TURNS.slice(14, 20));
    expect(window.records[3]!.id).toBe(hit.id);
    expect(window.prev).toEqual(expect.any(String));
    expect(window.next).toEqual(expect.any(String));

    const seen = window.records.map((r) => r.text);
    let prev = window.prev ?? null;
    while (prev) {
      const { out } = await call({ id: hit.conversation, before: prev, limit: 4 });
      seen.unshift(...out.records.map((r) => r.text));
      prev = out.prev ?? null;
    }
    let next = window.next;
    while (next) {
      const { out } = await call({ id: hit.conversation, after: next, limit: 4 });
      seen.push(...out.records.map((r) => r.text));
      next = out.next;
    }
    expect(seen).toEqual(TURNS);
  });

  it("leaves a Claude Code session's injected context out of its first page unless include_context is true", async () => {
    const { out: first } = await call({ id: ID, limit: 5 });
    expect(first.records.map((r) => r.text)).toEqual(TURNS.slice(0, 5));
    expect(first.records.some(isContext)).toBe(false);
    expect(Object.keys(first)).toEqual(["records", "next", "notice", "archival_content"]);
    const { out: full } = await call({ id: ID, limit: 5, include_context: true });
    expect(full.records.map((r) => r.text)).toEqual([
      "[context: hook_success]",
      TURNS[0],
      "[context: environment]",
      "[context: model]",
      "[context: agent_listing_delta]",
    ]);
    const { out: around } = await call({ id: ID, around: hitId, limit: 6, include_context: true });
    expect(around.records.map((r) => r.text)).toContain("[context: total_tokens_reminder]");
  });

  it("answers NotFound for another conversation's or an unknown hit, and Validation naming the field", async () => {
    for (const around of [otherHit, `${hitId}x`]) {
      expect((await error({ id: ID, around })).kind).toBe("NotFound");
    }
    const { out: first } = await call({ id: ID, limit: 2 });
    expect(await error({ id: ID, around: hitId, after: first.next })).toEqual({
      kind: "Validation",
      message: "after: cannot be combined with around",
    });
    expect(await error({ id: ID, around: "pelican" })).toEqual({
      kind: "Validation",
      message: "around: not a hit id (<kind>:<source id>)",
    });
    expect((await error({ id: ID, include_context: "true" })).message).toMatch(/^include_context: /);
  });
});

describe("/api/conversations and recall conversation", () => {
  let store: HistoryStore;
  let server: RunningHttpServer;
  let cookie = "";
  const get = async (query: string) => {
    const r = await httpRequest(server.port, `/api/conversations/${encodeURIComponent(ID)}?${query}`, {
      headers: { Cookie: cookie },
    });
    return { status: r.status, body: JSON.parse(r.body) as Page & { error?: string } };
  };

  beforeAll(async () => {
    store = await openHistoryStore({
      home: env.RECALL_HOME!,
      projectionVersion: PROJECTION_VERSION,
      readonly: true,
    });
    const services = createHttpServices(
      store.db,
      store.engine,
      env.RECALL_HOME!,
      path.join(env.HOME!, "bridge"),
    );
    server = await startHttpServer({ services, port: 0 });
    cookie = await login(server.loginUrl);
  });
  afterAll(async () => {
    await server?.close();
    store?.close();
  });

  it("HTTP: include_context=true|false, once, anything else a 400", async () => {
    for (const query of ["limit=5", "limit=5&include_context=false"]) {
      const r = await get(query);
      expect(r.status, query).toBe(200);
      expect(
        r.body.records.map((x) => x.text),
        query,
      ).toEqual(TURNS.slice(0, 5));
    }
    const shown = await get("limit=5&include_context=true");
    expect(shown.body.records.filter(isContext)).toHaveLength(4);
    const around = await get(`around=${encodeURIComponent(hitId)}&limit=6`);
    expect(around.body).toMatchObject({ focus: hitId, prev: expect.any(String) });
    expect(around.body.records.map((r) => r.text)).toEqual(TURNS.slice(14, 20));
    const aroundAll = await get(`around=${encodeURIComponent(hitId)}&limit=6&include_context=true`);
    expect(aroundAll.body.records.some(isContext)).toBe(true);
    for (const query of [
      "include_context=yes",
      "include_context=1",
      "include_context=",
      "include_context=true&include_context=false",
      `around=${encodeURIComponent(hitId)}&after=${encodeURIComponent(around.body.next!)}`,
    ]) {
      const r = await get(query);
      expect(r.status, query).toBe(400);
      expect(Object.keys(r.body), query).toEqual(["error"]);
    }
    expect((await get(`around=${encodeURIComponent(otherHit)}`)).status).toBe(404);
  });

  it("CLI: recall conversation shows context records only with --include-context", () => {
    const plain = runCli(["conversation", ID, "--limit", "5"], env);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain("[context");
    expect(plain.stdout).toContain(TURNS[4]);
    expect(plain.stdout).toMatch(/\nmore: recall conversation \S+ --after \S+\n$/);
    const shown = runCli(["conversation", ID, "--limit", "5", "--include-context"], env);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("[context: environment]");
    expect(shown.stdout).toMatch(/\nmore: recall conversation \S+ --after \S+ --include-context\n$/);
    const json = JSON.parse(
      runCli(["conversation", hitId, "--limit", "6", "--include-context", "--json"], env).stdout,
    ) as Page;
    expect(json.focus).toBe(hitId);
    expect(json.records.some(isContext)).toBe(true);
    const hidden = JSON.parse(runCli(["conversation", hitId, "--limit", "6", "--json"], env).stdout) as Page;
    expect(hidden.records.map((r) => r.text)).toEqual(TURNS.slice(14, 20));
    const mixed = runCli(["conversation", ID, "--around", hitId, "--after", "x"], env);
    expect([mixed.status, mixed.stderr]).toEqual([2, "recall: --after, --around: use only one of them\n"]);
  });
});

describe("a real Claude Code 2.1 transcript (../shared fixtures)", () => {
  const available = sharedAvailable("fixtures/real/claude-code");
  it.skipIf(!available)("opens on the prompt, its environment and listings shown only when asked for", () => {
    const t = tempDir("recall-conversation-real-");
    try {
      const { home, env: realEnv } = isolatedEnv(t.dir);
      cpSync(path.join(REAL_FIXTURES, "claude-code", "home"), home, { recursive: true });
      expect(runCli(["index"], realEnv).status).toBe(0);
      const id = "claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd";
      const page = (...flags: string[]) =>
        JSON.parse(
          runCli(["conversation", id, "--json", "--limit", "100", ...flags], realEnv).stdout,
        ) as Page;
      const hidden = page();
      expect(hidden.records.length).toBeGreaterThan(0);
      expect(hidden.records.some(isContext)).toBe(false);
      expect(hidden.records[0]!.text).toBe("run echo fixture please");
      const shown = page("--include-context");
      expect(shown.records.filter(isContext).map((r) => r.text)).toEqual(
        expect.arrayContaining(["[context: environment]", "[context: model]", "[context: skill_listing]"]),
      );
      expect(shown.records.filter((r) => !isContext(r))).toEqual(hidden.records);
    } finally {
      t.cleanup();
    }
  });
});
