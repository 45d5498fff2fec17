import type { Command } from "commander";
import { statSync } from "node:fs";
import { readAudit } from "../../audit/audit-log.js";
import { sourceCoverage } from "../../indexer/coverage.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { openHistoryStore } from "../../store/history-store.js";
import type { CommandModule } from "../program.js";
import { printJson } from "../output.js";

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `recall status`: coverage per source, index size, and tool-call latency from the audit log (content-free). */
export const statusCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("status")
      .description("index coverage per source, backlog and tool latency figures")
      .option("--json", "print JSON")
      .action(async (flags: { json?: boolean }) => {
        const { home } = ctx();
        const store = await openHistoryStore({ home, projectionVersion: PROJECTION_VERSION, readonly: true });
        try {
          const calls = readAudit(home, 1000);
          const durations = calls.map((c) => c.durationMs).sort((a, b) => a - b);
          const status = {
            index: { file: store.file, engine: store.engine, bytes: statSync(store.file).size },
            sources: sourceCoverage(store.db),
            toolCalls: {
              count: calls.length,
              p50Ms: percentile(durations, 50),
              p95Ms: percentile(durations, 95),
              errors: calls.filter((c) => !c.ok).length,
              truncated: calls.filter((c) => c.truncated).length,
            },
          };
          if (flags.json) return printJson(status);
          const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
          process.stdout.write(
            `index ${status.index.file} (${status.index.engine}, ${mb(status.index.bytes)})\n`,
          );
          for (const s of status.sources) {
            const through = s.indexedThrough ? new Date(s.indexedThrough).toISOString().slice(0, 16) : "—";
            const state = s.backlogFiles > 0 || !s.discovered ? "indexing" : "ready";
            process.stdout.write(
              `  ${s.source.padEnd(12)} ${state.padEnd(9)} through ${through}  files ${s.filesKnown}  backlog ${s.backlogFiles}  ` +
                `docs ${s.documents}  oversized ${s.oversized}  skipped ${s.skipped}  raw ${mb(s.raw.stored)}\n`,
            );
          }
          const t = status.toolCalls;
          process.stdout.write(
            `tool calls ${t.count} (p50 ${t.p50Ms ?? "—"} ms, p95 ${t.p95Ms ?? "—"} ms, errors ${t.errors})\n`,
          );
        } finally {
          store.close();
        }
      });
  },
};
