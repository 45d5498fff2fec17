import path from "node:path";
import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import type { BrokerRequest } from "../indexer/broker.js";
import { forget, ForgetScope } from "../indexer/forget.js";
import { createIndexWorker } from "../indexer/worker.js";
import { compileRedaction, PROJECTION_VERSION } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { recoverFirstLoad } from "../store/first-load.js";
import { readyWriter, registerFunctions } from "../store/history-store.js";
import { openDatabase } from "../store/open.js";
import { createIndexUpkeep } from "./index-upkeep.js";
import { indexThread } from "./index-thread.js";

/** What the broker's work is built from: plain data, so it can be handed to a thread. */
export interface BrokerDutiesSpec {
  /** RECALL_HOME (an interrupted first load's backups are kept in its backups/). */
  home: string;
  /** The history.db the worker writes (through a connection of its own). */
  file: string;
  /** Where the sources read from (a demo corpus's environment under `npm start`). */
  sourceEnv: Env;
  config: Config;
}

export interface BrokerDuties {
  /** Answers a request of the local channel (index, reindex, forget, status, ping). */
  answer(request: BrokerRequest, progress: (figures: unknown) => void): Promise<unknown>;
  /** Stops the worker, waiting for its batch in progress, and closes the writer. */
  stop(): Promise<void>;
}

/**
 * The elected broker's work: the index's one writer and its background worker (bounded
 * batches, FTS5 upkeep and term statistics when idle), and the writes other recall processes ask
 * of it. Throws when the writer cannot start; the process stays the broker without a worker.
 */
export function startBrokerDuties(spec: BrokerDutiesSpec, log: (line: string) => void): BrokerDuties {
  // The broker before may have been a first load killed before its end: its marker is settled
  // now (flushed and removed), or a reboot would set this broker's work aside. No loader can
  // still be running: it would hold the election.
  recoverFirstLoad(spec.file, path.join(spec.home, "backups"));
  const writer = openDatabase(spec.file);
  try {
    registerFunctions(writer);
    // Only the elected writer builds missing read indexes (a first load's, a reindex's).
    readyWriter(writer, { buildMissingIndexes: true });
  } catch (error) {
    writer.close();
    throw error;
  }
  const upkeep = createIndexUpkeep(writer, spec.file);
  const worker = createIndexWorker({
    db: writer,
    createSources: () => createSources(spec.sourceEnv, spec.config),
    projectionVersion: PROJECTION_VERSION,
    redaction: compileRedaction(spec.config.redaction),
    clock: systemClock,
    rawMaxBytesPerSource: spec.config.retention.rawMaxBytesPerSource,
    writer: "broker",
    log,
    pipeline: indexThread(spec.sourceEnv, spec.config),
    // Idle: the FTS5 merges and rewrites due, then term statistics for fresh processes.
    onIdle: () => upkeep.turn(),
  });
  log(`indexing ${worker.sourceNames().join(", ") || "no sources"} in the background`);
  worker.start();
  if (!spec.config.redaction.enabled)
    log("redaction is OFF (config.json redaction.enabled is false): secrets are indexed and shown verbatim");

  return {
    answer: async (request, progress) => {
      switch (request.command) {
        case "ping":
          return { pid: process.pid };
        case "status":
          return { pid: process.pid, worker: worker.figures() };
        case "index":
          return worker.catchUp(progress);
        case "forget":
          return forget(writer, ForgetScope.parse(request.args), Date.now());
        case "reindex": {
          log("reindex requested over the local channel");
          const result = await worker.reindex(progress);
          log(`reindex done: ${result.index.records} records in ${result.index.batches} batches`);
          return result;
        }
        default:
          throw new Error(`unknown request ${request.command}`);
      }
    },
    stop: async () => {
      await worker.stop();
      writer.close();
    },
  };
}
