/**
 * Privacy end to end over the demo corpus: the canary markers the generator plants in bodies a
 * correct projection drops (thinking, tool output, file writes, payloads) never appear in any
 * MCP, CLI or HTTP output (a real `recall serve`), nor in the index's derived tables; and a query
 * string is never written to any file under RECALL_HOME nor to stderr.
 *
 * Honest caveat: history.db does hold the real canaries, inside recall_raw_chunks — the exact
 * source bytes kept (compressed) so `recall export` can give a deleted transcript back.
 * A byte grep of history.db for a corpus canary would prove nothing either way, so the "never
 * stored" check uses a fresh marker that occurs nowhere in the corpus, and greps every file.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANARY_PATTERN, DROPPED_CANARY_PATTERN } from "../src/demo/canaries.js";
import { decompressRaw } from "../src/indexer/raw-codec.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";
import { httpRequest, login, startServe, type ServeProcess } from "./helpers/http.js";

let demo: DemoHome;
let client: Client;
let mcpStderr: () => string = () => "";
let recallHome = "";
/** Conversations whose retained source bytes contain at least one canary. */
let canaryConversations: string[] = [];
/** Canaries that really occur in what was indexed. */
let presentCanaries: string[] = [];
const cliStderr: string[] = [];
let serve: ServeProcess;
let cookie = "";

/** An authenticated GET to the real `recall serve`: status and raw body. */
async function http(p: string): Promise<{ status: number; body: string }> {
  const r = await httpRequest(serve.port, p, { headers: { Cookie: cookie } });
  return { status: r.status, body: r.body };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
/**
 * Canaries of kinds no projection keeps (thinking, reasoning, payloads...). Tool-output and
 * written-file canaries may show in transcripts' bounded tool previews (issue #29); the test of
 * Dyad chats below holds every kind.
 */
const leaks = (s: string) => s.match(DROPPED_CANARY_PATTERN) ?? [];
const anyCanary = (s: string) => s.match(CANARY_PATTERN) ?? [];

function cli(args: string[]) {
  const r = runCli(args, demo.env);
  cliStderr.push(r.stderr);
  return r;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const st = statSync(full);
    return st.isDirectory() ? filesUnder(full) : st.isFile() ? [full] : [];
  });
}

beforeAll(async () => {
  demo = await createDemoHome({ seed: 23, messages: 600 });
  recallHome = demo.env.RECALL_HOME!;
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);

  const db = new Database(path.join(recallHome, "history.db"), { readonly: true });
  const found = new Set<string>();
  const conversations = new Set<string>();
  for (const row of db
    .prepare("SELECT conversation, data, codec FROM recall_raw_chunks")
    .iterate() as Iterable<{
    conversation: string | null;
    data: Buffer;
    codec: string;
  }>) {
    const hits = decompressRaw(row.data, row.codec).toString("utf8").match(CANARY_PATTERN) ?? [];
    for (const c of hits) found.add(c);
    if (hits.length > 0 && row.conversation) conversations.add(row.conversation);
  }
  db.close();
  // Dyad chats are indexed from the demo's Dyad database (no raw retention: a chat the user
  // deletes must leave): its canaries sit in message bodies and ai_messages_json.
  const dyad = new Database(demo.manifest.paths.dyadDb, { readonly: true });
  for (const row of dyad
    .prepare("SELECT chat_id AS chatId, content || ' ' || coalesce(ai_messages_json, '') AS t FROM messages")
    .iterate() as Iterable<{ chatId: number; t: string }>) {
    const hits = row.t.match(CANARY_PATTERN) ?? [];
    for (const c of hits) found.add(c);
    if (hits.length > 0) conversations.add(`chat:dyad:${row.chatId}`);
  }
  dyad.close();
  presentCanaries = [...found].sort();
  canaryConversations = [...conversations].sort();

  const mcp = await connectMcp(demo.env, { name: "privacy-test" });
  client = mcp.client;
  mcpStderr = mcp.stderr;
  serve = await startServe(demo.env);
  cookie = await login(serve.loginUrl);
});

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  demo?.cleanup();
});

describe("privacy end to end (demo corpus)", () => {
  it("indexed sources that really contain canaries", () => {
    expect(presentCanaries.length).toBeGreaterThan(10);
    expect(canaryConversations.length).toBeGreaterThan(3);
    expect(presentCanaries.every((c) => demo.manifest.canaries.includes(c))).toBe(true);
    expect(canaryConversations.some((c) => c.startsWith("chat:dyad:"))).toBe(true);
    const db = new Database(path.join(recallHome, "history.db"), { readonly: true });
    const chats = db.prepare("SELECT count(*) AS n FROM recall_documents WHERE kind = 'chat'").get() as {
      n: number;
    };
    db.close();
    expect(chats.n).toBeGreaterThan(0);
  });

  it("keeps canaries out of the derived tables (documents, records, conversations, meta)", () => {
    const db = new Database(path.join(recallHome, "history.db"), { readonly: true });
    try {
      const texts = [
        "SELECT title || ' ' || body AS t FROM recall_documents",
        "SELECT text AS t FROM recall_records",
        "SELECT coalesce(title, '') AS t FROM recall_conversations",
        "SELECT value AS t FROM recall_meta",
        "SELECT alias AS t FROM recall_session_aliases",
      ];
      for (const sql of texts) {
        for (const row of db.prepare(sql).iterate() as Iterable<{ t: string }>)
          expect(leaks(row.t)).toEqual([]);
      }
    } finally {
      db.close();
    }
  });

  it("keeps every kind of canary out of Dyad chats' documents and records (their payload tags stay out)", () => {
    const db = new Database(path.join(recallHome, "history.db"), { readonly: true });
    try {
      const texts = [
        "SELECT title || ' ' || body AS t FROM recall_documents WHERE kind = 'chat'",
        "SELECT r.text AS t FROM recall_records r JOIN recall_conversations c ON c.id = r.conversation WHERE c.kind = 'chat'",
      ];
      let rows = 0;
      for (const sql of texts) {
        for (const row of db.prepare(sql).iterate() as Iterable<{ t: string }>) {
          rows += 1;
          expect(anyCanary(row.t)).toEqual([]);
        }
      }
      expect(rows).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it("never returns a canary over MCP: search_history for every canary, get_conversation of every page", async () => {
    for (const canary of presentCanaries) {
      const out = text(
        await client.callTool({ name: "search_history", arguments: { query: canary, limit: 50 } }),
      );
      expect(leaks(out)).toEqual([]);
      const strict = (JSON.parse(out) as { hits: { relaxed?: boolean; kind: string }[] }).hits.filter(
        (h) => !h.relaxed,
      );
      // A tool-output or written-file canary is found only in a transcript's tool preview.
      if (leaks(canary).length > 0) expect(strict).toEqual([]);
      else expect(strict.every((h) => h.kind === "transcript")).toBe(true);
    }
    let pages = 0;
    for (const id of canaryConversations) {
      let after: string | undefined;
      do {
        const out = text(
          await client.callTool({
            name: "get_conversation",
            arguments: { id, limit: 100, ...(after ? { after } : {}) },
          }),
        );
        expect(leaks(out)).toEqual([]);
        const page = JSON.parse(out) as { records?: unknown[]; next?: string | null; error?: unknown };
        expect(page.error).toBeUndefined();
        after = page.next ?? undefined;
        pages += 1;
      } while (after && pages < 500);
    }
    expect(pages).toBeGreaterThanOrEqual(canaryConversations.length);
    // Ordinary searches over words near the planted bodies return text too: still no canary.
    for (const q of ["decision", "error output", "file written", "token auth"]) {
      expect(
        leaks(text(await client.callTool({ name: "search_history", arguments: { query: q, limit: 50 } }))),
      ).toEqual([]);
    }
  });

  it("never prints a canary from the CLI (search, conversation, status)", () => {
    for (const canary of presentCanaries.slice(0, 3)) {
      for (const args of [
        ["search", canary, "--json"],
        ["search", canary, "--limit", "50"],
      ]) {
        const r = cli(args);
        expect(r.status, r.stderr).toBe(0);
        expect(leaks(r.stdout)).toEqual([]);
      }
    }
    for (const id of canaryConversations.slice(0, 3)) {
      let after: string | null = null;
      for (let page = 0; page < 5; page++) {
        const r = cli(["conversation", id, "--json", "--limit", "100", ...(after ? ["--after", after] : [])]);
        expect(r.status, r.stderr).toBe(0);
        expect(leaks(r.stdout)).toEqual([]);
        after = (JSON.parse(r.stdout) as { next: string | null }).next;
        if (!after) break;
      }
      const human = cli(["conversation", id, "--limit", "100"]);
      expect(leaks(human.stdout)).toEqual([]);
    }
    expect(leaks(cli(["status"]).stdout)).toEqual([]);
    expect(leaks(cli(["status", "--json"]).stdout)).toEqual([]);
  });

  it("never returns a canary over HTTP: /api/search, /api/history of every hit, /api/conversations pages", async () => {
    let documents = 0;
    for (const canary of presentCanaries) {
      const r = await http(`/api/search?${new URLSearchParams({ q: canary, limit: "50" })}`);
      expect(r.status).toBe(200);
      expect(leaks(r.body)).toEqual([]);
      const out = JSON.parse(r.body) as { hits: { relaxed?: boolean; kind: string }[] };
      const strict = out.hits.filter((h) => !h.relaxed);
      if (leaks(canary).length > 0) expect(strict).toEqual([]);
      else expect(strict.every((h) => h.kind === "transcript")).toBe(true);
    }
    for (const q of ["decision", "error output", "file written", "token auth"]) {
      const r = await http(`/api/search?${new URLSearchParams({ q, limit: "50" })}`);
      expect(leaks(r.body)).toEqual([]);
      for (const hit of (JSON.parse(r.body) as { hits: { sourceLink: string }[] }).hits) {
        const doc = await http(hit.sourceLink);
        expect(doc.status).toBe(200);
        expect(leaks(doc.body)).toEqual([]);
        documents += 1;
      }
    }
    expect(documents).toBeGreaterThan(20);
    let pages = 0;
    for (const id of canaryConversations) {
      const base = `/api/conversations/${encodeURIComponent(id)}`;
      let after: string | null = null;
      const seen: string[] = [];
      do {
        const r = await http(`${base}?${new URLSearchParams({ limit: "100", ...(after ? { after } : {}) })}`);
        expect(r.status).toBe(200);
        expect(leaks(r.body)).toEqual([]);
        const page = JSON.parse(r.body) as { records: { id: string }[]; next: string | null };
        seen.push(...page.records.map((rec) => rec.id));
        after = page.next;
        pages += 1;
      } while (after && pages < 500);
      // The dashboard's window around a record and the page before it read the same records.
      const middle = seen[Math.floor(seen.length / 2)];
      if (middle && /^[a-z]+:/.test(middle) && !middle.includes("#")) {
        const around = await http(`${base}?${new URLSearchParams({ around: middle, limit: "50" })}`);
        expect(around.status).toBe(200);
        expect(leaks(around.body)).toEqual([]);
        const prev = (JSON.parse(around.body) as { prev: string | null }).prev;
        if (prev)
          expect(leaks((await http(`${base}?${new URLSearchParams({ before: prev })}`)).body)).toEqual([]);
      }
    }
    expect(pages).toBeGreaterThanOrEqual(canaryConversations.length);
  });

  it("never writes a query to any file under RECALL_HOME or to stderr", async () => {
    const marker = `CANARYQUERY${randomBytes(8).toString("hex")}`;
    const queries = [marker, `decision ${marker}`, `${marker} token`];
    for (const query of queries) {
      await client.callTool({ name: "search_history", arguments: { query, filters: { agent: "claude" } } });
      await client.callTool({ name: "search_history", arguments: { query, filters: { since: "nope" } } });
      cli(["search", query, "--json"]);
      cli(["search", query, "--kind", "transcript"]);
      cli(["search", query, "--since", "not-a-date"]);
    }
    await client.callTool({ name: "get_conversation", arguments: { id: marker } });
    cli(["conversation", marker]);
    for (const query of queries) {
      expect((await http(`/api/search?${new URLSearchParams({ q: query })}`)).status).toBe(200);
      expect((await http(`/api/search?${new URLSearchParams({ q: query, since: "nope" })}`)).status).toBe(
        400,
      );
      expect((await http(`/api/search?${new URLSearchParams({ q: query, agent: query })}`)).status).toBe(400);
    }
    expect((await http(`/api/conversations/${encodeURIComponent(marker)}`)).status).toBe(404);
    expect((await http(`/api/history/${encodeURIComponent(`message:${marker}`)}`)).status).toBe(404);
    const needles = [marker, ...presentCanaries.slice(0, 20)];
    const files = filesUnder(recallHome);
    expect(files.some((f) => f.endsWith("audit.jsonl"))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      // history.db (and its WAL) hold the corpus canaries in compressed raw chunks by design (see
      // the header): only the fresh marker is looked for there.
      const isIndex =
        /history\.db(-wal|-shm)?$/.test(path.basename(file)) ||
        file.includes(`${path.sep}backups${path.sep}`);
      for (const needle of isIndex ? [marker] : needles) {
        expect(bytes.includes(Buffer.from(needle)), `${needle} in ${file}`).toBe(false);
      }
    }
    for (const stderr of [mcpStderr(), serve.stderr(), serve.stdout(), ...cliStderr]) {
      for (const needle of needles) expect(stderr).not.toContain(needle);
    }
    const audit = readFileSync(path.join(recallHome, "audit.jsonl"), "utf8");
    expect(audit).toContain('"surface":"cli"');
    expect(audit).toContain('"surface":"mcp"');
    expect(audit).toContain('"surface":"http"');
  });
});
