import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Worker } from "node:worker_threads";

const KEEP_SEMI_SPACES = "--semi-space-growth-factor=1";
/** Whether this process keeps its young generation small (see limitHeapGrowth). */
let limited = false;

/**
 * Keeps a long-running recall process's heap near what it actually holds. Called by the bin
 * before it loads anything else (cli/main.ts): V8 reads both flags at each collection, but a
 * young generation already grown stays grown.
 *
 * - Old generation: indexing promotes much short-lived data (a backfill group's documents live
 *   until its commit), and after each full collection V8 lets that generation grow to up to four
 *   times what survived: a 1M-message first load peaked at about 390 MB with under 40 MB live.
 *   Growing by half instead kept it at about 280 MB, for no measurable change in time.
 * - Young generation: V8 doubles its semi-spaces from 1 MB to 16 MB as a backfill's writer keeps
 *   its groups alive, 32 MB committed for 15 MB live in the old one. Not growing them put the
 *   demo corpus's 1M first load at 252–254 MiB peak RSS against 304–308, in the same time
 *   (101–119 s against 105–123, two threads).
 * - A process that answers queries as they come (`recall mcp`, `youngGeneration: "grows"`) lets
 *   its young generation grow: in 1 MB semi-spaces a server answering 200 queries for the first
 *   time took about 3 ms more at p95 (more scavenges), 25.4 against 21.8 ms over four alternating
 *   runs on the 1M demo index. Its broker then indexes with the larger young generation.
 *
 * Set once, before the bundle loads: V8 rejects a code cache made under other flags
 * (cli/code-cache.ts). Only recall's own processes call this; a host app embedding recall keeps
 * its own settings.
 */
export function limitHeapGrowth(youngGeneration: "small" | "grows" = "small"): void {
  setFlagsFromString("--heap-growing-percent=50");
  if (youngGeneration === "grows") return;
  if (!limited) process.on("worker", (worker: Worker) => worker.once("online", restoreHeapLimits));
  limited = true;
  setFlagsFromString(KEEP_SEMI_SPACES);
}

/**
 * Each new heap's set-up puts V8's semi-space growth factor, a flag of the whole process, back
 * to its floor of 2: a process that limited its heap sets it again once any Worker is online
 * (limitHeapGrowth listens for every Worker the process starts). The backfill also does at each
 * group, as its writer holds the event loop while the thread starts.
 */
export function restoreHeapLimits(): void {
  if (limited) setFlagsFromString(KEEP_SEMI_SPACES);
}

/**
 * A full collection now, for a process about to answer its first request: `recall mcp`'s start-up
 * leaves enough garbage that V8 began an old-generation collection during its first call, 5–9 ms
 * of marking and compaction in it (1M Zipf index). `gc` is exposed only to contexts made after the
 * flag is set, so it is taken from a new one.
 */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  // Back as it was: V8 rejects a code cache made under other flags (cli/code-cache.ts).
  setFlagsFromString("--no-expose-gc");
  gc();
}
