import type { Command } from "commander";
import { type Env, type Config } from "../../app/recall.js";
import { type BackfillResult, type WorkProgress } from "../../app/broker-work.js";
import { sourceCoverage, type SourceCoverage } from "../../app/status.js";
import { openIndexToWrite, type Db } from "../../app/open-index.js";
import { brokerOrLocal, foregroundWorker } from "../../app/broker-work.js";
import { lookedIn, SOURCES } from "../../app/sources.js";
import type { CommandModule } from "../program.js";
import { formatBytes, printJson, counted } from "../output.js";
import { progressBar, type Progress } from "../progress.js";
import { runTermStatsJob } from "../../app/term-stats-job.js";
import { finishFtsWork } from "../../app/index-upkeep.js";
import { isoInstant } from "../../core/instant.js";

interface IndexFlags {
  json?: boolean;
}

export interface IndexSummary {
  /** Who ran the batches: the running broker (asked over its local channel), or this process. */
  by?: "broker" | "local";
  engine: string;
  file: string;
  records: number;
  batches: number;
  ticks: number;
  seconds: number;
  sources: {
    source: string;
    /** Records written by this run. */
    records: number;
    files: number;
    documents: number;
    conversations: number;
    oversized: number;
    skipped: number;
    malformed: number;
    indexedThrough: number | null;
    backlogFiles: number;
    raw: SourceCoverage["raw"];
  }[];
}

export function summarize(
  result: BackfillResult,
  coverage: SourceCoverage[],
  meta: { engine: string; file: string; seconds: number },
): IndexSummary {
  return {
    engine: meta.engine,
    file: meta.file,
    records: result.records,
    batches: result.batches,
    ticks: result.ticks,
    seconds: meta.seconds,
    sources: Object.entries(result.sources).map(([source, run]) => {
      const c = coverage.find((x) => x.source === source);
      return {
        source,
        records: run.records,
        files: c?.filesKnown ?? run.files,
        documents: c?.documents ?? 0,
        conversations: c?.conversations ?? 0,
        oversized: c?.oversized ?? run.counters.oversized,
        skipped: c?.skipped ?? run.counters.skipped,
        malformed: c?.malformed ?? run.counters.malformed,
        indexedThrough: c?.indexedThrough ?? null,
        backlogFiles: c?.backlogFiles ?? 0,
        raw: c?.raw ?? { chunks: 0, bytes: 0, stored: 0, prunedChunks: 0, prunedBytes: 0 },
      };
    }),
  };
}

function formatSummary(summary: IndexSummary): string {
  const lines = [
    `${summary.by === "broker" ? "The running broker indexed" : "Indexed"} ${counted(summary.records, "record")} in ${counted(summary.batches, "batch", "batches")} (${summary.seconds.toFixed(1)} s, engine ${summary.engine}) into ${summary.file}`,
  ];
  for (const s of summary.sources) {
    const through = isoInstant(s.indexedThrough)?.slice(0, 16).replace("T", " ") ?? "-";
    lines.push(
      `  ${s.source.padEnd(12)} ${counted(s.records, "record")} read, ${counted(s.documents, "document")} in ${counted(s.conversations, "conversation")}, ` +
        `${counted(s.files, "file")}; not messages ${s.skipped} (metadata, duplicates), oversized ${s.oversized}, malformed ${s.malformed}; ` +
        `raw ${formatBytes(s.raw.bytes)} retained (${formatBytes(s.raw.stored)} on disk` +
        `${s.raw.prunedChunks > 0 ? `, ${formatBytes(s.raw.prunedBytes)} pruned` : ""}); through ${through}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** When no source found anything: where recall looked, and what moves it. */
function nothingFound(summary: IndexSummary, env: Env): string {
  if (summary.sources.some((s) => s.files > 0 || s.documents > 0)) return "";
  return `No agent history found. recall looked in: ${lookedIn(env, SOURCES)}.\n`;
}

export function showProgress(bar: Progress | null, p: WorkProgress): void {
  if (!bar || !p) return;
  if (p.phase === "reset") bar.update(0, 1);
  else bar.update(p.doneBytes, Math.max(p.doneBytes + p.backlogBytes, 1));
}

/**
 * `recall index`: a foreground backfill of this machine's agent transcripts — the worker's
 * bounded batches back to back, with a progress bar — then a per-source summary.
 */
/**
 * Brings the index up to date the way every writing command does: a running broker indexes with
 * its own worker; otherwise this process takes the broker's place for the duration and runs the
 * same bounded batches in the foreground (`recall index`, `recall start`).
 */
export async function catchUpThroughBroker(options: {
  home: string;
  db: Db;
  /** Where the sources read from. */
  env: Env;
  config: Config;
  bar: Progress | null;
  command: string;
}): Promise<{ by: "broker" | "local"; result: BackfillResult }> {
  const work = await brokerOrLocal({
    home: options.home,
    request: { command: "index" },
    onProgress: (p) => showProgress(options.bar, p as WorkProgress),
    busyMessage: `busy: \`recall ${options.command}\` is indexing in the foreground`,
    local: async () => {
      const worker = foregroundWorker(options.db, options.env, options.config);
      try {
        const result = await worker.catchUp((p) => showProgress(options.bar, p));
        // What the broker otherwise does in idle time, done before the index is reported ready:
        // the FTS5 work due (a merge left half done, a rewrite when tombstones slow reads), then
        // the term statistics, so a fresh `recall search` or `recall mcp` does not build them.
        await finishFtsWork(options.db, options.db.name);
        await runTermStatsJob(options.db);
        return result;
      } finally {
        await worker.stop();
      }
    },
  });
  return { by: work.by, result: work.result as BackfillResult };
}

export const indexCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("index")
      .description(
        "index this machine's agent transcripts now (bounded batches back to back, then a summary)",
      )
      .option("--json", "print the summary as JSON")
      .action(async (flags: IndexFlags) => {
        const { env, home } = ctx();
        const config = ctx().config();
        const store = await openIndexToWrite({
          home,
          engine: ctx().forcedEngine,
        });
        const bar = flags.json ? null : progressBar("indexing", 1);
        const started = Date.now();
        try {
          const work = await catchUpThroughBroker({ home, db: store.db, env, config, bar, command: "index" });
          bar?.stop();
          const result = work.result;
          const summary = summarize(result, sourceCoverage(store.db, Object.keys(result.sources)), {
            engine: store.engine,
            file: store.file,
            seconds: (Date.now() - started) / 1000,
          });
          summary.by = work.by;
          if (flags.json) printJson(summary);
          else process.stdout.write(formatSummary(summary) + nothingFound(summary, env));
        } finally {
          bar?.stop();
          store.close();
        }
      });
  },
};
