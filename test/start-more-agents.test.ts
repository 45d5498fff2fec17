/**
 * `npm start` on a machine whose only agent history is one of Cline, Kilo Code or Continue
 * (their real sessions from ../shared/fixtures/real-more, copied at run time): that history is
 * found and indexed, not the demo corpus. The compiled binary, in a child process.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { copyRealHome } from "./helpers/real-more.js";
import { sharedAvailable } from "./helpers/shared.js";
import { homeOnlyEnv } from "./helpers/home-only.js";
import { tempDir } from "./helpers/tmp.js";

const available = sharedAvailable("fixtures/real-more");

describe.skipIf(!available)("npm start on a machine with only one of the newer agents", () => {
  for (const [cli, agent, displayName] of [
    ["cline", "cline", "Cline"],
    ["kilocode", "kilo", "Kilo Code"],
    ["continue", "continue", "Continue"],
  ] as const) {
    it(`indexes ${cli}'s history, not the demo`, () => {
      const t = tempDir();
      try {
        copyRealHome(cli, t.dir);
        const r = runCli(["start", "--no-serve"], homeOnlyEnv(t.dir));
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout).not.toMatch(/No agent history found|demo/);
        const indexed = Number(/Indexed (\d+) records/.exec(r.stdout)?.[1] ?? 0);
        expect(indexed).toBeGreaterThan(0);
        const hits = r.stdout.match(/^\s+transcript:\S+/gm) ?? [];
        expect(hits.length).toBeGreaterThan(0);
        for (const hit of hits) expect(hit.trim()).toMatch(new RegExp(`^transcript:${agent}:`));
        // status names the source by its display name too.
        const status = runCli(["status"], homeOnlyEnv(t.dir));
        expect(status.status, status.stderr).toBe(0);
        expect(status.stdout).toMatch(new RegExp(`^  ${agent} \\(${displayName}\\) +ready `, "m"));
      } finally {
        t.cleanup();
      }
    }, 120_000);
  }
});
