import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";

/**
 * Whether indexing reads and prepares batches on a second thread (indexer/pipeline.ts) while this
 * one writes: only with RECALL_INDEX_THREAD=on. Since the two threads share the projection as
 * their waits say (indexer/pipeline-share.ts), a first backfill of the 1M demo corpus on the
 * 2-core machine took 73–88 s against 111 s in one thread, for about 50 MiB more peak memory. It
 * stays off by default: one CI run of the seeded fault-injection loop (brokers killed mid-work)
 * saw `recall index` fail six times in a row with it on, which neither six local runs nor three
 * other CI runs reproduced; on by default waits for that to be understood.
 */
export function indexThread(env: Env, config: Config): { env: Env; config: Config } | undefined {
  return process.env.RECALL_INDEX_THREAD === "on" ? { env, config } : undefined;
}
