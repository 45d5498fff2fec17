import type { Env } from "../platform/paths.js";
import { RecallError } from "../core/errors.js";
import type { Config } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import { BACKFILL_GROUP } from "../indexer/backfill.js";
import { askBroker, electBroker, type BrokerRequest } from "../indexer/broker.js";
import { createIndexWorker, type IndexWorker } from "../indexer/worker.js";
import { compileRedaction, PROJECTION_VERSION } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { readyWriter } from "../store/history-store.js";
import type { Db } from "../store/open.js";
import { indexThread } from "./index-thread.js";

export type { BackfillResult } from "../indexer/backfill.js";
export type { ReindexResult, WorkProgress } from "../indexer/worker.js";

/** How long a command waits to win an election before asking again (a broker just appeared). */
const ELECTION_WAIT_MS = 2_000;
const ATTEMPTS = 5;

export type BrokerWorkResult<T> = { by: "broker"; result: unknown } | { by: "local"; result: T };

/**
 * Index-writing work of a CLI command (`recall index`, `recall reindex`): asks the running
 * broker over its authenticated local channel; when none runs, this process becomes the broker
 * for the duration of the work (so no second writer starts meanwhile) and runs it itself with
 * the same bounded batches. Anyone asking this process meanwhile is told it is busy.
 */
export async function brokerOrLocal<T>(options: {
  home: string;
  request: BrokerRequest;
  onProgress?: (figures: unknown) => void;
  local: () => Promise<T>;
  /** Told when this process answers as the broker while working. */
  busyMessage?: string;
  /** How long the broker may take to answer (default two minutes). */
  timeoutMs?: number;
}): Promise<BrokerWorkResult<T>> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const answer = await askBroker(options.home, options.request, {
      timeoutMs: options.timeoutMs ?? 120_000,
      onProgress: options.onProgress,
    });
    if (answer !== null) return { by: "broker", result: answer };
    let won = false;
    const handle = electBroker({
      home: options.home,
      retryMs: 250,
      onElected: () => {
        won = true;
      },
      onRequest: async (request) => {
        if (request.command === "ping") return { pid: process.pid, busy: true };
        // The asker's own command ends with this one line (exit 1), not an internal fault.
        throw new RecallError(
          "Conflict",
          `${options.busyMessage ?? "busy: a foreground recall command is indexing"}; try again when it ends`,
        );
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      handle.elected(),
      new Promise((resolve) => (timer = setTimeout(resolve, ELECTION_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!won) {
      await handle.close();
      continue;
    }
    try {
      return { by: "local", result: await options.local() };
    } finally {
      await handle.close();
    }
  }
  throw new Error("could not reach the broker nor become it; is another recall process starting?");
}

/**
 * The worker a foreground `recall index` or `recall reindex` runs when no broker answers (this
 * process won the election): as the broker does, it first builds read indexes left missing.
 */
export function foregroundWorker(db: Db, env: Env, config: Config): IndexWorker {
  readyWriter(db, { buildMissingIndexes: true });
  return createIndexWorker({
    db,
    createSources: () => createSources(env, config),
    projectionVersion: PROJECTION_VERSION,
    redaction: compileRedaction(config.redaction),
    clock: systemClock,
    rawMaxBytesPerSource: config.retention.rawMaxBytesPerSource,
    group: BACKFILL_GROUP,
    writer: "foreground",
    pipeline: indexThread(env, config),
  });
}
