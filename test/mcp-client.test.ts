import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";

let demo: DemoHome;
let client: Client;
let stderr = "";

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]!.text;

beforeAll(async () => {
  demo = await createDemoHome({ seed: 11 });
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    env: { ...(process.env as Record<string, string>), ...demo.env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: "recall-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  demo?.cleanup();
});

describe("recall mcp over stdio (real SDK client, real process)", () => {
  it("lists its tools with input schemas and read-only annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(expect.arrayContaining(["get_conversation", "search_history"]));
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
    expect(stderr).not.toContain(canaryQuery);
    const audit = readFileSync(path.join(demo.env.RECALL_HOME!, "audit.jsonl"), "utf8");
    expect(audit).not.toContain(canaryQuery);
    expect(audit).toContain('"tool":"search_history"');
  });
});
