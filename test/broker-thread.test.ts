/**
 * The elected broker writes the index on a thread of its own (src/app/broker-thread.ts), so the
 * thread answering MCP requests only reads: the thread's entry loads from the bundled CLI and
 * from the compiled modules, the local channel's requests (`recall index` asks the running
 * broker) are answered through it, and the server ends cleanly when its client leaves
 * (helpers/thread-marks.ts notes the threads a process starts).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLI, runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";
import { threadMarker, threadsMarked } from "./helpers/thread-marks.js";
import { tempDir } from "./helpers/tmp.js";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

describe("the broker's thread", () => {
  let home: DemoHome | null = null;
  let cleanup = () => {};
  afterEach(() => {
    home?.cleanup();
    home = null;
    cleanup();
  });

  it("writes the index for `recall mcp`, bundled and compiled, and answers the local channel", async () => {
    home = await createDemoHome({ messages: 2_000 });
    const t = tempDir("recall-broker-thread-");
    cleanup = t.cleanup;
    const marker = threadMarker(t.dir);
    for (const [entry, expected] of [
      [CLI, path.join(DIST, "bundle", "broker-thread.js")],
      [path.join(DIST, "cli", "run.js"), path.join(DIST, "app", "broker-thread.js")],
    ] as const) {
      const marks = path.join(t.dir, `${path.basename(expected)}-${path.basename(path.dirname(expected))}`);
      const env = {
        ...home.env,
        RECALL_HOME: path.join(t.dir, path.basename(path.dirname(expected))),
        ...marker(marks),
      };
      const server = await connectMcp(env, { name: "broker-thread-test", entry });
      try {
        await vi.waitFor(() => expect(server.stderr()).toContain("in the background"), { timeout: 20_000 });
        // Asked of the running broker: its thread runs the catch-up and streams its progress.
        const asked = runCli(["index", "--json"], env);
        expect(asked.stderr).toBe("");
        expect(asked.status).toBe(0);
        expect(JSON.parse(asked.stdout)).toMatchObject({ by: "broker" });
        const answer = (await server.client.callTool({
          name: "search_history",
          arguments: { query: "the", limit: 3 },
        })) as { content: { text: string }[] };
        expect((JSON.parse(answer.content[0]!.text) as { hits: unknown[] }).hits).toHaveLength(3);
        expect(threadsMarked(marks)[0]).toBe(expected);
      } finally {
        await server.client.close();
      }
      // Closed by its client, the broker stopped its thread: no restart, no failure.
      expect(server.stderr()).not.toMatch(/thread (ended|failed)|could not start/);
    }
  });
});
