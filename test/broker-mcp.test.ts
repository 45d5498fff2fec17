/**
 * Broker election across real `recall mcp` processes: two servers started together elect
 * exactly one broker, which indexes in the background; killing it hands the broker's place to
 * the survivor within seconds, and indexing resumes without loss; `recall reindex` asks the
 * running broker over its authenticated local channel and keeps session aliases.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.js";
import type { SearchCoverage } from "../src/store/coverage-row.js";
import { tempDir } from "./helpers/tmp.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SESSION = "5b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8";

interface Server {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
  dead: boolean;
}

interface Hit {
  id: string;
  session: string | null;
  relaxed?: boolean;
}
interface SearchOut {
  hits: Hit[];
  coverage: SearchCoverage;
}

const t = tempDir("recall-broker-");
const home = path.join(t.dir, "home");
const recallHome = path.join(t.dir, "recall");
const transcript = path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`);
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
for (const k of [
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "OPENCODE_DB",
  "RECALL_ENGINE",
]) {
  delete env[k];
}
Object.assign(env, { HOME: home, RECALL_HOME: recallHome, NO_COLOR: "1" });
const servers: Server[] = [];

async function startServer(): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    env,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "broker-test", version: "1.0.0" });
  // A server that went away while starting says why on its stderr.
  await client.connect(transport).catch((error: Error) => {
    throw new Error(`${error.message}; server stderr:\n${err.slice(-2000)}`);
  });
  const server: Server = { client, transport, pid: transport.pid!, stderr: () => err, dead: false };
  servers.push(server);
  return server;
}

async function search(server: Server, query: string, filters?: Record<string, unknown>): Promise<SearchOut> {
  const result = await server.client
    .callTool({ name: "search_history", arguments: { query, ...(filters ? { filters } : {}) } })
    .catch((error: Error) => {
      // A server that went away says why on its stderr.
      throw new Error(`${error.message}; server stderr:\n${server.stderr().slice(-2000)}`);
    });
  const text = (result as { content: { text: string }[] }).content[0]!.text;
  expect(result.isError, text).toBeFalsy();
  return JSON.parse(text) as SearchOut;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const isBroker = (s: Server) => /elected broker/.test(s.stderr());

afterAll(async () => {
  for (const s of servers) if (!s.dead) await s.client.close().catch(() => {});
  t.cleanup();
});

describe("broker election between recall mcp processes", () => {
  it("elects one broker, hands over when it is killed, and resumes indexing without loss", async () => {
    mkdirSync(path.dirname(transcript), { recursive: true });
    writeFileSync(
      transcript,
      claudeLine({ uuid: "b1", session: SESSION, text: "the flamingo rollout decision", at: BASE_TIME }) +
        claudeLine({
          uuid: "b2",
          session: SESSION,
          role: "assistant",
          text: "flamingo rollout agreed",
          at: BASE_TIME + 1,
        }) +
        `${JSON.stringify({ type: "custom-title", customTitle: "heron-plan", sessionId: SESSION })}\n`,
    );

    const [a, b] = await Promise.all([startServer(), startServer()]);
    const first = await until("a broker", () => servers.find(isBroker));
    // Give a second election time to (wrongly) happen.
    await new Promise((r) => setTimeout(r, 1500));
    expect(servers.filter(isBroker)).toHaveLength(1);
    const survivor = first === a ? b : a;

    // The follower only reads; the broker's worker indexes in the background.
    await until("the first transcript indexed", async () => {
      const out = await search(survivor, "flamingo rollout");
      return out.hits.filter((h) => !h.relaxed).length === 2 ? out : undefined;
    });
    // Every source caught up: coverage is one small object instead of a list of sources.
    const ready = await until("coverage ready", async () => {
      const out = await search(survivor, "flamingo");
      return Array.isArray(out.coverage) ? undefined : out.coverage;
    });
    expect(ready).toEqual({ state: "ready", sources: expect.any(Number), indexedThrough: BASE_TIME + 1 });

    // What a first load killed before its end leaves: read indexes and the documents' key absent.
    const db = new Database(path.join(recallHome, "history.db"));
    db.exec("DROP INDEX recall_documents_project; DROP INDEX recall_documents_key");
    db.close();
    first.dead = true;
    process.kill(first.pid, "SIGKILL");
    appendFileSync(
      transcript,
      claudeLine({
        uuid: "b3",
        session: SESSION,
        text: "the pelican follow-up after the crash",
        at: BASE_TIME + 2,
      }),
    );

    const tookOver = Date.now();
    await until("the survivor to take over", () => (isBroker(survivor) ? true : undefined), 10_000);
    expect(Date.now() - tookOver).toBeLessThan(10_000);
    // The new broker builds them back.
    await until("the indexes rebuilt", () => {
      const check = new Database(path.join(recallHome, "history.db"), { readonly: true });
      const names = check
        .prepare(
          "SELECT name FROM sqlite_master WHERE name IN ('recall_documents_project', 'recall_documents_key')",
        )
        .pluck()
        .all();
      check.close();
      return names.length === 2 ? true : undefined;
    });
    const after = await until("the appended line indexed by the new broker", async () => {
      const out = await search(survivor, "pelican");
      return out.hits.length > 0 ? out : undefined;
    });
    expect(after.hits.map((h) => h.id)).toHaveLength(1);
    // Nothing lost, nothing doubled.
    const all = await search(survivor, "flamingo rollout");
    expect(all.hits.filter((h) => !h.relaxed)).toHaveLength(2);

    // reindex asks the running broker over the authenticated channel; aliases survive it.
    const reindex = runCli(["reindex", "--json"], env);
    expect(reindex.status, reindex.stderr).toBe(0);
    const summary = JSON.parse(reindex.stdout) as { by: string; resetDocuments: number; records: number };
    expect(summary.by).toBe("broker");
    expect(summary.resetDocuments).toBe(0); // transcript documents are rewritten, not deleted first
    expect(summary.records).toBeGreaterThanOrEqual(3);
    // (spawnSync held this process's event loop: let the survivor's stderr arrive.)
    await until("the broker's reindex log line", () =>
      /reindex requested/.test(survivor.stderr()) ? true : undefined,
    );
    const byAlias = await search(survivor, "pelican", { session: "heron-plan" });
    expect(byAlias.hits.map((h) => h.session)).toEqual([SESSION]);

    // `recall index` while a broker runs: the broker catches up, nobody else writes.
    const index = runCli(["index", "--json"], env);
    expect(index.status, index.stderr).toBe(0);
    expect((JSON.parse(index.stdout) as { by: string }).by).toBe("broker");

    // `recall forget` too: the broker deletes and leaves the tombstone.
    const forgot = runCli(["forget", "--session", SESSION, "--yes", "--json"], env);
    expect(forgot.status, forgot.stderr).toBe(0);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ by: "broker", sessions: [SESSION] });
    const gone = await search(survivor, "pelican");
    expect(gone.hits.filter((h) => !h.relaxed)).toEqual([]);

    // `recall status` reads the published coverage; the broker's stderr never carries a query.
    const status = JSON.parse(runCli(["status", "--json"], env).stdout) as { coverage: { source: string }[] };
    expect(status.coverage.map((c) => c.source)).toContain("claude-code");
    for (const s of servers) expect(s.stderr()).not.toMatch(/pelican|flamingo/);
    expect(readFileSync(path.join(recallHome, "audit.jsonl"), "utf8")).not.toMatch(/pelican|flamingo/);
  });
});
