import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { warmUpQueries } from "../src/app/search-warm-up.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";

let demo: DemoHome;
let client: Client;
let stderr: () => string = () => "";
/** The Dyad needle whose app folder the server runs in (search_chats/read_chat bind to it). */
let chatNeedle: DemoHome["manifest"]["needles"][number];
/** A chat of another app in the same database. */
let foreignChat: number;

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;

beforeAll(async () => {
  demo = await createDemoHome({ seed: 11 });
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);
  chatNeedle = demo.manifest.needles.find((n) => n.source === "dyad")!;
  const dyad = new Database(demo.manifest.paths.dyadDb, { readonly: true });
  const appPath = dyad
    .prepare("SELECT path FROM apps WHERE id = ?")
    .pluck()
    .get(chatNeedle.ref.appId) as string;
  foreignChat = dyad
    .prepare("SELECT id FROM chats WHERE app_id != ? LIMIT 1")
    .pluck()
    .get(chatNeedle.ref.appId) as number;
  dyad.close();
  const mcp = await connectMcp(demo.env, {
    name: "recall-test",
    cwd: path.join(demo.manifest.paths.dyadAppsDir, appPath),
  });
  client = mcp.client;
  stderr = mcp.stderr;
});

afterAll(async () => {
  await client?.close();
  demo?.cleanup();
});

describe("recall mcp over stdio (real SDK client, real process)", () => {
  it("warms its search up before the first request, without an audit line or a word of it on stderr", () => {
    // `recall index` stored the common terms' statistics the warm-up draws its queries from.
    const index = new Database(path.join(demo.env.RECALL_HOME!, "history.db"), { readonly: true });
    const queries = warmUpQueries(index);
    index.close();
    expect(queries.length).toBeGreaterThan(0);
    expect(stderr()).toMatch(/warmed up search in \d+ ms/);
    for (const word of queries.join(" ").split(" "))
      expect(stderr()).not.toMatch(new RegExp(`\\b${word}\\b`));
    const audit = path.join(demo.env.RECALL_HOME!, "audit.jsonl");
    expect(existsSync(audit) ? readFileSync(audit, "utf8") : "").not.toContain('"tool":"search_history"');
  });

  it("lists its tools with input schemas and read-only annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(["get_conversation", "read_chat", "search_chats", "search_history"]);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    const search = tools.find((t) => t.name === "search_history")!;
    expect(search.inputSchema.properties).toHaveProperty("query");
    expect(search.inputSchema.properties).toHaveProperty("filters");
    expect(search.annotations?.readOnlyHint).toBe(true);
    expect(search.description).toMatch(/get_conversation/);
  });

  it("finds a planted needle with search_history and pages its conversation with get_conversation", async () => {
    const needle = demo.manifest.needles.find((n) => n.source === "claude")!;
    const result = await client.callTool({ name: "search_history", arguments: { query: needle.token } });
    expect(result.isError).toBeFalsy();
    const out = JSON.parse(text(result));
    expect(out.engine).toBe("fts5");
    expect(out.hits.length).toBeGreaterThan(0);
    const hit = out.hits[0];
    expect(hit.snippet.length).toBeLessThanOrEqual(320);
    expect(hit.sourceLink).toBe(`/api/history/${encodeURIComponent(hit.id)}`);

    const page = await client.callTool({
      name: "get_conversation",
      arguments: { id: hit.conversation, limit: 5 },
    });
    expect(page.isError).toBeFalsy();
    const conv = JSON.parse(text(page));
    expect(conv.records.length).toBeGreaterThan(0);
    expect(conv.records.length).toBeLessThanOrEqual(5);
    if (conv.next) {
      const more = JSON.parse(
        text(
          await client.callTool({
            name: "get_conversation",
            arguments: { id: hit.conversation, after: conv.next },
          }),
        ),
      );
      expect(more.records[0].id).not.toBe(conv.records[0].id);
    }
    // The audit names the conversation read (not its record ids), and no text.
    const audit = readFileSync(path.join(demo.env.RECALL_HOME!, "audit.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool: string; returned: string[] });
    expect(audit.filter((a) => a.tool === "get_conversation").at(-1)?.returned).toEqual([hit.conversation]);
  });

  it("finds a Dyad needle with search_chats in the server's own app and expands it with read_chat", async () => {
    const result = await client.callTool({ name: "search_chats", arguments: { query: chatNeedle.token } });
    expect(result.isError, text(result)).toBeFalsy();
    const out = JSON.parse(text(result));
    expect(out.archival_content).toBe(true);
    const chat = out.results.find((r: { chat_id: number }) => r.chat_id === chatNeedle.ref.chatId);
    expect(chat, text(result)).toBeDefined();
    const match = chat.matches.find((m: { message_id: number }) => m.message_id === chatNeedle.ref.messageId);
    expect(match).toBeDefined();
    const read = await client.callTool({
      name: "read_chat",
      arguments: { chat_id: chatNeedle.ref.chatId, around_message_id: chatNeedle.ref.messageId },
    });
    expect(read.isError, text(read)).toBeFalsy();
    const page = JSON.parse(text(read));
    const hit = page.messages.find((m: { message_id: number }) => m.message_id === chatNeedle.ref.messageId);
    expect(hit.text).toContain(chatNeedle.token);
    // Another app's chat is NotFound, exactly like a missing one.
    for (const chatId of [foreignChat, 999_999]) {
      const other = await client.callTool({ name: "read_chat", arguments: { chat_id: chatId } });
      expect(JSON.parse(text(other)).error.kind).toBe("NotFound");
    }
  });

  it("answers a bad call with a Validation error naming the field", async () => {
    const result = await client.callTool({ name: "search_history", arguments: { query: "x", limit: 51 } });
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result))).toEqual({
      error: { kind: "Validation", message: expect.stringMatching(/^limit: /) },
    });
    const missing = await client.callTool({ name: "get_conversation", arguments: { id: "claude:nope" } });
    expect(JSON.parse(text(missing)).error.kind).toBe("NotFound");
  });

  it("keeps canaries out of every answer and queries out of its files and stderr", async () => {
    const canaryQuery = demo.manifest.canaries[0]!;
    const result = await client.callTool({ name: "search_history", arguments: { query: canaryQuery } });
    const out = JSON.parse(text(result));
    for (const canary of demo.manifest.canaries) expect(text(result)).not.toContain(canary);
    expect(out.hits.filter((h: { relaxed?: boolean }) => !h.relaxed)).toEqual([]);
    expect(stderr()).not.toContain(canaryQuery);
    const audit = readFileSync(path.join(demo.env.RECALL_HOME!, "audit.jsonl"), "utf8");
    expect(audit).not.toContain(canaryQuery);
    expect(audit).toContain('"tool":"search_history"');
  });
});
