/**
 * `recall index` reads and prepares its batches on the pipeline's thread (src/indexer/pipeline.ts)
 * once the first group leaves work: the thread's entry loads from the bundled CLI and from the
 * compiled modules alike (helpers/thread-marks.ts notes the threads a process starts).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { CLI } from "./helpers/cli.js";
import { threadMarker, threadsMarked } from "./helpers/thread-marks.js";
import { tempDir } from "./helpers/tmp.js";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

describe("recall index on two threads", () => {
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

  it("bundled (dist/cli/main.js) and compiled (dist/cli/run.js), each starting the thread unless told not to", async () => {
    home = await createDemoHome({ messages: 12_000 });
    const t = tempDir("recall-index-thread-");
    cleanup = t.cleanup;
    const marker = threadMarker(t.dir);
    const bundled = index(CLI, path.join(t.dir, "bundled"), path.join(t.dir, "bundled.marks"), marker);
    expect(bundled.threads).toEqual([path.join(DIST, "bundle", "index-thread.js")]);
    const compiled = index(
      path.join(DIST, "cli", "run.js"),
      path.join(t.dir, "compiled"),
      path.join(t.dir, "compiled.marks"),
      marker,
    );
    expect(compiled.threads).toEqual([path.join(DIST, "indexer", "index-thread.js")]);
    expect(bundled.summary.records).toBeGreaterThan(10_000);
    expect(compiled.summary.records).toBe(bundled.summary.records);
    const single = index(CLI, path.join(t.dir, "single"), path.join(t.dir, "single.marks"), marker, {
      RECALL_INDEX_THREAD: "off",
    });
    expect(single.threads).toEqual([]);
    expect(single.summary.records).toBe(bundled.summary.records);
  });
});
