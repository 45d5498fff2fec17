import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HEAP = new URL("../dist/core/heap.js", import.meta.url).href;

/**
 * A process that limited its heap (core/heap.ts) starts a Worker, then allocates the way a
 * backfill's writer does (much of it surviving a while): the young generation it ends with, in MB.
 * `keep`: limited through limitHeapGrowth, which restores the limit once any Worker is online.
 */
function youngGenerationAfterWorker(keep: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    import { Worker } from "node:worker_threads";
    const heap = await import(${JSON.stringify(HEAP)});
    // Without the restore: the flag set alone, as limitHeapGrowth once did.
    if (${keep}) heap.limitHeapGrowth();
    else (await import("node:v8")).setFlagsFromString("--semi-space-growth-factor=1");
    const worker = new Worker("setTimeout(() => {}, 50)", { eval: true });
    await new Promise((resolve) => worker.once("online", () => setImmediate(resolve)));
    let kept = [];
    for (let i = 0; i < 2e6; i++) {
      kept.push({ text: "record " + i, at: i });
      if (kept.length > 100000) kept = [];
    }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    process.stdout.write(String(young.space_size / 2 ** 20));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

describe("heap limits of recall's own processes", () => {
  it("keep the young generation from growing after a Worker starts", () => {
    // V8 puts the growth factor back when the Worker's heap is set up: without restoring it, the
    // young generation grows to its default maximum (16 MB semi-spaces).
    expect(youngGenerationAfterWorker(false)).toBeGreaterThan(8);
    expect(youngGenerationAfterWorker(true)).toBeLessThanOrEqual(2);
  });
});
