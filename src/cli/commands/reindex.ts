import type { Command } from "commander";
import { type ReindexResult, type WorkProgress } from "../../app/broker-work.js";
import { openIndexToWrite } from "../../app/open-index.js";
import { brokerOrLocal, foregroundWorker } from "../../app/broker-work.js";
import type { CommandModule } from "../program.js";
import { printJson } from "../output.js";
import { progressBar } from "../progress.js";
import { showProgress } from "./index-command.js";

export interface ReindexSummary {
  /** Who ran the batches: the running broker, or this process. */
  by: "broker" | "local";
  resetDocuments: number;
  resetCursors: number;
  records: number;
  batches: number;
  seconds: number;
}

/**
 * `recall reindex`: resets file registrations and cursors and the documents of sources that keep
 * no history (chat databases, the bridge), keeping session aliases, retained records, raw chunks,
 * tombstones and transcript documents (rewritten as re-read), then rebuilds with the same
 * bounded batches — by asking the running broker over its authenticated local channel, or in
 * this process when no broker runs. Sources are only read, never touched.
 */
export const reindexCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("reindex")
      .description("rebuild derived documents from sources and retained records (keeps aliases and records)")
      .option("--json", "print the summary as JSON")
      .action(async (flags: { json?: boolean }) => {
        const { env, home } = ctx();
        const config = ctx().config();
        const store = await openIndexToWrite({
          home,
          engine: ctx().forcedEngine,
        });
        const bar = flags.json ? null : progressBar("reindexing", 1);
        // Without a terminal the bar is silent, and so is stderr: a script reads the summary.
        const report = (progress: WorkProgress) => {
          if (progress) showProgress(bar, progress);
        };
        const started = Date.now();
        try {
          const work = await brokerOrLocal({
            home,
            request: { command: "reindex" },
            busyMessage: "busy: `recall reindex` is rebuilding the index in the foreground",
            onProgress: (p) => report(p as WorkProgress),
            local: async () => {
              const worker = foregroundWorker(store.db, env, config);
              try {
                return await worker.reindex(report);
              } finally {
                await worker.stop();
              }
            },
          });
          bar?.stop();
          const result = work.result as ReindexResult;
          const summary: ReindexSummary = {
            by: work.by,
            resetDocuments: result.reset.documents,
            resetCursors: result.reset.checkpoints,
            records: result.index.records,
            batches: result.index.batches,
            seconds: (Date.now() - started) / 1000,
          };
          if (flags.json) return printJson(summary);
          process.stdout.write(
            `Reindexed ${work.by === "broker" ? "by the running broker" : "in this process"}: reset ` +
              `${summary.resetDocuments} documents and ${summary.resetCursors} cursors, then indexed ` +
              `${summary.records} records in ${summary.batches} batches (${summary.seconds.toFixed(1)} s). ` +
              `Session aliases and retained records were kept.\n`,
          );
        } finally {
          bar?.stop();
          store.close();
        }
      });
  },
};
