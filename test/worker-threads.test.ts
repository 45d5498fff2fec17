/**
 * recall's worker threads load from the bundled CLI and from the compiled modules alike
 * (helpers/thread-marks.ts notes the threads a process starts):
 * - `recall index` reads and prepares its batches on the pipeline's thread (src/indexer/pipeline.ts)
 *   once the first group leaves work, and computes term statistics on a second thread as well
 *   (src/app/term-stats-helper.ts);
 * - the elected broker writes the index on a thread of its own (src/app/broker-thread.ts), so the
 *   thread answering MCP requests only reads; the local channel's requests (`recall index` asks
 *   the running broker) are answered through it, and the server ends cleanly when its client leaves.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { CLI, runCli } from "./helpers/cli.js";
import { connectMcp } from "./helpers/mcp.js";
import { threadMarker, threadsMarked } from "./helpers/thread-marks.js";
import { tempDir } from "./helpers/tmp.js";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

describe("recall's worker threads", () => {
  let home: DemoHome | null = null;
  let cleanup = () => {};
  afterEach(() => {
    home?.cleanup();
    home = null;
    cleanup();
  });

  /** Runs `entry index --json` on a fresh index; returns its summary and the threads' entry files. */
  const index = (
    entry: string,
    recallHome: string,
    marks: string,
    marker: (marks: string) => Record<string, string>,
    extra: Record<string, string> = {},
  ) => {
    const result = spawnSync(process.execPath, [entry, "index", "--json"], {
      encoding: "utf8",
      env: {
        ...process.env,
        ...home!.env,
        RECALL_HOME: recallHome,
        NO_COLOR: "1",
        ...marker(marks),
        ...extra,
      },
      timeout: 120_000,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout) as { records: number };
    return { summary, threads: threadsMarked(marks) };
  };

  it("recall index, bundled (dist/cli/main.js) and compiled (dist/cli/run.js), starts the pipeline's and the term statistics' threads unless told not to", async () => {
    home = await createDemoHome({ messages: 12_000 });
    const t = tempDir("recall-index-thread-");
    cleanup = t.cleanup;
    const marker = threadMarker(t.dir);
    const bundled = index(CLI, path.join(t.dir, "bundled"), path.join(t.dir, "bundled.marks"), marker);
    expect(bundled.threads).toEqual([
      path.join(DIST, "bundle", "index-thread.js"),
      path.join(DIST, "bundle", "term-stats-thread.js"),
    ]);
    const compiled = index(
      path.join(DIST, "cli", "run.js"),
      path.join(t.dir, "compiled"),
      path.join(t.dir, "compiled.marks"),
      marker,
    );
    expect(compiled.threads).toEqual([
      path.join(DIST, "indexer", "index-thread.js"),
      path.join(DIST, "app", "term-stats-thread.js"),
    ]);
    expect(bundled.summary.records).toBeGreaterThan(10_000);
    expect(compiled.summary.records).toBe(bundled.summary.records);
    const single = index(CLI, path.join(t.dir, "single"), path.join(t.dir, "single.marks"), marker, {
      RECALL_INDEX_THREAD: "off",
    });
    expect(single.threads).toEqual([]);
    expect(single.summary.records).toBe(bundled.summary.records);
  });

  it("the broker's thread writes the index for `recall mcp`, bundled and compiled, and answers the local channel", async () => {
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
