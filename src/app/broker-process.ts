import path from "node:path";
import type { Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import { electBroker, type BrokerHandle } from "../indexer/broker.js";
import { forget, ForgetScope } from "../indexer/forget.js";
import { createIndexWorker, type IndexWorker } from "../indexer/worker.js";
import { compileRedaction, PROJECTION_VERSION } from "../projection/index.js";
import { createSources } from "../sources/readers.js";
import { recoverFirstLoad } from "../store/first-load.js";
import { readyWriter, registerFunctions } from "../store/history-store.js";
import { openDatabase, type Db } from "../store/open.js";
import { createIndexUpkeep } from "./index-upkeep.js";
import { indexThread } from "./index-thread.js";

/**
 * How long a new broker waits before its first indexing cycle. A client that starts `recall mcp`
 * sends initialize, tools/list and often a first call at once, and a cycle's batches run
 * synchronously: started at election, they kept those waiting (on a 100k-message index, spawn to
 * the first call's result took 350 ms instead of 210 ms). Local channel requests are served meanwhile.
 */
const FIRST_CYCLE_DELAY_MS = 1_000;

export interface BrokerProcessOptions {
  home: string;
  /** The history.db the worker writes (through a connection of its own). */
  file: string;
  /** Where the sources read from (a demo corpus's environment under `npm start`). */
  sourceEnv: Env;
  config: Config;
  /** Content-free lines for stderr. */
  log: (line: string) => void;
}

/**
 * A long-running surface's part in broker election (`recall mcp`, `recall serve`): the elected
 * process runs the index worker in the background (bounded batches, yielding to requests
 * between them) and answers the local channel's requests — index, reindex and forget, the
 * writes other recall processes ask of the index's one writer; the others only read, and one of
 * them takes over within seconds when the broker exits.
 */
export function joinBrokerElection(options: BrokerProcessOptions): BrokerHandle {
  const { log } = options;
  let writer: Db | null = null;
  let worker: IndexWorker | null = null;
  let firstCycle: NodeJS.Timeout | undefined;
  return electBroker({
    home: options.home,
    onElected: () => {
      try {
        // The broker before may have been a first load killed before its end: its marker is
        // settled now (flushed and removed), or a reboot would set this broker's work aside.
        // No loader can still be running: it would hold the election.
        recoverFirstLoad(options.file, path.join(options.home, "backups"));
        // The worker writes through its own connection; searches keep reading through theirs.
        writer = openDatabase(options.file);
        registerFunctions(writer);
        // Only the elected writer builds missing read indexes (a first load's, a reindex's).
        readyWriter(writer, { buildMissingIndexes: true });
        const upkeep = createIndexUpkeep(writer, options.file);
        const w = createIndexWorker({
          db: writer,
          createSources: () => createSources(options.sourceEnv, options.config),
          projectionVersion: PROJECTION_VERSION,
          redaction: compileRedaction(options.config.redaction),
          clock: systemClock,
          rawMaxBytesPerSource: options.config.retention.rawMaxBytesPerSource,
          writer: "broker",
          log,
          pipeline: indexThread(options.sourceEnv, options.config),
          // Idle: the FTS5 merges and rewrites due, then term statistics for fresh processes.
          onIdle: () => upkeep.turn(),
        });
        firstCycle = setTimeout(() => {
          // Naming the sources builds them and reads each one's coverage (33–40 ms at 53k
          // conversations): at election that fell on a new server's first requests.
          log(`indexing ${w.sourceNames().join(", ") || "no sources"} in the background`);
          w.start();
        }, FIRST_CYCLE_DELAY_MS);
        worker = w;
        log("elected broker");
        if (!options.config.redaction.enabled)
          log(
            "redaction is OFF (config.json redaction.enabled is false): secrets are indexed and shown verbatim",
          );
      } catch (error) {
        // Still the broker (no second writer starts), but without a worker: say so.
        log(`elected broker, but the index worker could not start (${(error as Error).name})`);
      }
      return async () => {
        clearTimeout(firstCycle);
        await worker?.stop();
        worker = null;
        writer?.close();
        writer = null;
      };
    },
    onRequest: async (request, progress) => {
      const w = worker;
      if (!w || !writer) throw new Error("not the broker");
      switch (request.command) {
        case "ping":
          return { pid: process.pid };
        case "status":
          return { pid: process.pid, worker: w.figures() };
        case "index":
          return w.catchUp(progress);
        case "forget":
          return forget(writer, ForgetScope.parse(request.args), Date.now());
        case "reindex": {
          log("reindex requested over the local channel");
          const result = await w.reindex(progress);
          log(`reindex done: ${result.index.records} records in ${result.index.batches} batches`);
          return result;
        }
        default:
          throw new Error(`unknown request ${request.command}`);
      }
    },
  });
}
