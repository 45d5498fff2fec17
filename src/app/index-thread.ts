import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";

/**
 * Whether indexing reads and prepares batches on a second thread (indexer/pipeline.ts) while this
 * one writes: yes unless RECALL_INDEX_THREAD=off (the pipeline itself stays in one thread on a
 * single core). Since the two threads share the projection as their waits say
 * (indexer/pipeline-share.ts), a first backfill of the 1M demo corpus on the 2-core machine took
 * 73–88 s against 111 s in one thread, for about 50 MiB more peak memory. A thread that fails
 * mid-way costs speed, not the command: the worker goes on in one thread (indexer/worker.ts).
 */
export function indexThread(env: Env, config: Config): { env: Env; config: Config } | undefined {
  return process.env.RECALL_INDEX_THREAD === "off" ? undefined : { env, config };
}
