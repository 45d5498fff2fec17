import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { distribution, fig, timeSync, type Distribution, type Figure } from "./measure.js";
import { warmPageCache } from "./page-cache.js";

export interface ColdProcessFigures {
  available: boolean;
  note?: string;
  /** Wall time of `recall search --json <query>` from spawn to exit. */
  wall?: Distribution;
  /** Peak RSS of those processes. */
  peakRss?: Distribution;
  maxPeakRss?: Figure;
  failures?: Figure;
}

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const HOOK = new URL("./rss-hook.js", import.meta.url).href;

/**
 * Cold `recall search` processes (a new process per query, as a person or a script runs it), each
 * started with the index in the OS page cache (page-cache.ts).
 */
export function benchColdProcess(recallHome: string, queries: readonly string[]): ColdProcessFigures {
  if (!existsSync(CLI))
    return { available: false, note: `unavailable: ${CLI} is missing (run npm run build)` };
  const wall: number[] = [];
  const rss: number[] = [];
  let failures = 0;
  for (const q of queries) {
    warmPageCache(recallHome);
    const { ms, value } = timeSync(() =>
      spawnSync(
        process.execPath,
        ["--import", HOOK, CLI, "search", "--json", "--limit", "10", "--", ...q.split(/\s+/)],
        {
          encoding: "utf8",
          env: { ...process.env, RECALL_HOME: recallHome, NO_COLOR: "1" },
          maxBuffer: 16 << 20,
        },
      ),
    );
    if (value.status !== 0) {
      failures++;
      continue;
    }
    wall.push(ms);
    const m = /RECALL_BENCH_MAXRSS (\d+)/.exec(value.stderr);
    if (m) rss.push(Number(m[1]) / 2 ** 20);
  }
  if (wall.length === 0)
    return {
      available: false,
      note: "unavailable: every recall search process failed",
      failures: fig(failures, "processes"),
    };
  return {
    available: true,
    wall: distribution(wall),
    peakRss: distribution(rss, "MiB"),
    maxPeakRss: fig(rss.length ? Math.round(Math.max(...rss) * 10) / 10 : null, "MiB"),
    failures: fig(failures, "processes"),
  };
}
