/**
 * One MCP request line over the stdio limit (10 MiB) is refused with a JSON-RPC error and a line
 * on stderr; the server keeps answering, and keeps its broker role (issue #30, item 5). A line that
 * is not JSON is answered with -32700 Parse error, never left unanswered (issue #35).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./helpers/cli.js";
import { connectMcp } from "./helpers/mcp.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SESSION = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e";

describe("recall mcp and an oversized request", () => {
  let h: TranscriptHome;
  afterEach(() => h?.cleanup());

  it("answers an 11 MiB line with an error, then ping and searches, and stays the broker", async () => {
    h = createTranscriptHome();
    writeFileSync(
      path.join(h.claudeDir, `${SESSION}.jsonl`),
      claudeLine({ uuid: "o1", session: SESSION, text: "the oversized ocelot", at: BASE_TIME }),
    );
    expect(h.run("index").status).toBe(0);
    const mcp = await connectMcp(h.env, { name: "oversized-test" });
    try {
      for (let i = 0; i < 50 && !/elected broker/.test(mcp.stderr()); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const pid = Number(/recall mcp\[(\d+)\]: elected broker/.exec(mcp.stderr())?.[1]);
      expect(pid).toBeGreaterThan(0);

      const huge = mcp.client.request(
        {
          method: "tools/call",
          params: { name: "search_history", arguments: { query: "x".repeat(11 * 1024 * 1024) } },
        },
        z.object({}).passthrough(),
        { timeout: 30_000 },
      );
      await expect(huge).rejects.toThrow(/over the 10485760-byte limit/);
      await expect(mcp.client.ping()).resolves.toBeDefined();
      const result = (await mcp.client.callTool({
        name: "search_history",
        arguments: { query: "ocelot" },
      })) as { content: { text: string }[] };
      expect(JSON.parse(result.content[0]!.text).hits).toHaveLength(1);
      expect(mcp.stderr()).toMatch(
        /refused a request line of \d+ bytes \(over 10485760\); the connection stays open/,
      );

      const status = JSON.parse(h.run("status", "--json").stdout) as {
        broker: { running: boolean; pid: number };
      };
      expect(status.broker).toMatchObject({ running: true, pid });
    } finally {
      await mcp.client.close();
    }
  });
});

describe("recall mcp and a line that is not JSON", () => {
  it("answers -32700 Parse error (with the id when the line shows one), then the next request", async () => {
    const h = createTranscriptHome();
    try {
      const child = spawn(process.execPath, [CLI, "mcp"], { env: h.env, stdio: ["pipe", "pipe", "ignore"] });
      const lines: string[] = [];
      let buffered = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        buffered += chunk;
        for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
          lines.push(buffered.slice(0, i));
          buffered = buffered.slice(i + 1);
        }
      });
      const nextLine = async (n: number) => {
        for (let i = 0; i < 100 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 50));
        expect(lines.length).toBeGreaterThanOrEqual(n);
        return JSON.parse(lines[n - 1]!) as { id: unknown; error?: { code: number }; result?: unknown };
      };
      // A client waiting for an answer to a half-written line gets one instead of hanging.
      // Its id, when the line still shows one, so that very request is answered.
      child.stdin.write('{"jsonrpc":"2.0","id":1,"method":\n');
      expect(await nextLine(1)).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32700 } });
      child.stdin.write("not json at all\n");
      expect(await nextLine(2)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
      expect(await nextLine(3)).toMatchObject({ id: 2, result: {} });
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
    } finally {
      h.cleanup();
    }
  });
});
