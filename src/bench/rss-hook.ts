/**
 * Loaded with `node --import` into a `recall search` process started by the benchmark: on exit it
 * reports the process's peak resident set size on stderr, so the cold-process figure measures the
 * real CLI, unchanged.
 */
import { writeSync } from "node:fs";

export const RSS_MARKER = "RECALL_BENCH_MAXRSS";

process.on("exit", () => {
  try {
    writeSync(2, `\n${RSS_MARKER} ${process.resourceUsage().maxRSS * 1024}\n`);
  } catch {
    // stderr closed: nothing to report
  }
});
