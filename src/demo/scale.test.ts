import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateDemoCorpus } from "./generate.js";

const root = mkdtempSync(path.join(os.tmpdir(), "recall-demo-scale-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("demo corpus at scale", () => {
  it("generates 20,000 messages across all sources quickly, reporting progress", async () => {
    const progress: [number, number][] = [];
    const t0 = performance.now();
    const m = await generateDemoCorpus({
      root,
      seed: 11,
      messages: 20_000,
      onProgress: (done, total) => progress.push([done, total]),
    });
    const seconds = (performance.now() - t0) / 1000;
    const total = Object.values(m.counts).reduce((a, c) => a + c.messages, 0);
    expect(total).toBeGreaterThan(20_000 * 0.9);
    expect(total).toBeLessThan(20_000 * 1.2);
    expect(m.needles.length).toBeGreaterThanOrEqual(180);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toEqual([progress.at(-1)?.[1], progress.at(-1)?.[1]]);
    for (let i = 1; i < progress.length; i++)
      expect((progress[i] as [number, number])[0]).toBeGreaterThanOrEqual(
        (progress[i - 1] as [number, number])[0],
      );
    expect(seconds).toBeLessThan(15);
  });
});
