import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolDefinition } from "../tools/definition.js";
import { BoundedStdioTransport } from "./line-transport.js";
import { rehearse } from "./rehearsal.js";
import { createMcpServer, type McpCallRecord } from "./server.js";

/** A search tool that records what it is asked; it fails every call, or never answers, if told. */
function echoTool(asked: unknown[], answer: "ok" | "fail" | "never" = "ok"): ToolDefinition {
  return {
    name: "search_history",
    description: "",
    inputSchema: z.object({ query: z.string(), limit: z.number() }),
    defaultConsent: "always",
    getConsentPreview: () => "",
    execute: (args) => {
      asked.push(args);
      if (answer === "never") return new Promise<string>(() => {});
      return answer === "fail"
        ? Promise.reject(new Error("index not ready"))
        : Promise.resolve(`{"hits":[]}`);
    },
  };
}

/** One request line to `server` over a fresh in-process line transport, and its answer. */
async function askOnce(server: ReturnType<typeof createMcpServer>, request: object): Promise<unknown> {
  const input = new PassThrough();
  const output = new PassThrough();
  await server.connect(new BoundedStdioTransport({ input, output }));
  const answer = new Promise<unknown>((resolve) =>
    output.once("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString("utf8")))),
  );
  input.write(`${JSON.stringify(request)}\n`);
  return answer;
}

describe("a server's rehearsal before its first request", () => {
  it("answers each call through the tool, then serves a new connection", async () => {
    const asked: unknown[] = [];
    const audited: McpCallRecord[] = [];
    const server = createMcpServer({
      name: "t",
      version: "1",
      tools: [echoTool(asked)],
      context: {},
      onCall: (record) => audited.push(record),
    });
    await rehearse(server, [
      { name: "search_history", arguments: { query: "word0 word1", limit: 10 } },
      { name: "search_history", arguments: { query: "src/a.ts", limit: 10 } },
    ]);
    expect(asked).toEqual([
      { query: "word0 word1", limit: 10 },
      { query: "src/a.ts", limit: 10 },
    ]);
    const answer = await askOnce(server, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "search_history", arguments: { query: "later", limit: 3 } },
    });
    expect(answer).toMatchObject({ id: 7, result: { content: [{ type: "text" }] } });
    expect(asked).toHaveLength(3);
    expect(audited.map((r) => r.ok)).toEqual([true, true, true]);
  });

  it("ends when the tool fails every call (an index not ready yet)", async () => {
    const asked: unknown[] = [];
    const server = createMcpServer({
      name: "t",
      version: "1",
      tools: [echoTool(asked, "fail")],
      context: {},
    });
    await rehearse(server, [{ name: "search_history", arguments: { query: "word0", limit: 10 } }]);
    expect(asked).toHaveLength(1);
  });

  it("stops waiting for a call past its deadline, and the server serves its client", async () => {
    const asked: unknown[] = [];
    const server = createMcpServer({
      name: "t",
      version: "1",
      tools: [echoTool(asked, "never")],
      context: {},
    });
    const calls = [
      { name: "search_history", arguments: { query: "word0", limit: 10 } },
      { name: "search_history", arguments: { query: "word1", limit: 10 } },
    ];
    // Without the deadline this would wait forever (the test's own timeout fails it).
    await rehearse(server, calls, 50);
    expect(asked).toHaveLength(2);
    const answer = await askOnce(server, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(answer).toMatchObject({ id: 1, result: {} });
  });
});
