/**
 * `npm start` (the real CLI process) on a HOME holding only Gemini CLI or only Qwen Code history:
 * it indexes that history, not the demo corpus, and its sample search finds the agent's sessions.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { REAL_MORE_FIXTURES, sharedAvailable } from "./helpers/shared.js";
import { homeOnlyEnv } from "./helpers/home-only.js";
import { tempDir } from "./helpers/tmp.js";

const available = sharedAvailable("fixtures/real-more");

describe.skipIf(!available)("npm start on a machine holding one new agent's history", () => {
  for (const [cli, agent] of [
    ["gemini-cli", "gemini"],
    ["qwen-code", "qwen"],
  ] as const) {
    it(`indexes ${cli} and not the demo`, () => {
      const t = tempDir();
      try {
        cpSync(path.join(REAL_MORE_FIXTURES, cli, "home"), t.dir, { recursive: true });
        const r = runCli(["start", "--no-serve"], homeOnlyEnv(t.dir));
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout).not.toMatch(/No agent history found|demo corpus/);
        const indexed = Number(/Indexed (\d+) records/.exec(r.stdout)?.[1]);
        expect(indexed).toBeGreaterThan(10);
        // The sample search ("decision") finds the agent's own sessions.
        expect(r.stdout).toMatch(new RegExp(`^\\s+transcript:${agent}:`, "m"));
      } finally {
        t.cleanup();
      }
    }, 120_000);
  }
});
