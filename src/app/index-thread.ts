import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";

/**
 * Whether indexing reads and prepares batches on a second thread (indexer/pipeline.ts) while this
 * one writes: only with RECALL_INDEX_THREAD=on. Measured on the 2-core machine at 100k demo
 * messages, idle but for the run, it was no faster (9.3–10.6 s against 8.8–9.9 s in one thread)
 * for 40 % more CPU and 50 MiB more memory; a machine with more free cores may gain.
 */
export function indexThread(env: Env, config: Config): { env: Env; config: Config } | undefined {
  return process.env.RECALL_INDEX_THREAD === "on" ? { env, config } : undefined;
}
