import type { Command } from "commander";
import { isRecallError, RecallError } from "../../core/errors.js";
import { statSync } from "node:fs";
import { auditLogProblem, readAudit, readAuditFailures } from "../../app/audit.js";
import {
  brokerState,
  indexWrittenByNewer,
  readCoverage,
  readPublishedCoverage,
  rebuildingNow,
  redactionState,
  sourceCoverage,
  toolFigures,
} from "../../app/status.js";
import { openIndexToRead } from "../../app/open-index.js";
import { sourceLabel, SOURCES } from "../../app/sources.js";
import { checkIndex } from "../../app/index-health.js";
import { describeSwitches, splitSwitches } from "../../app/split-switches.js";
import type { CommandModule } from "../program.js";
import { formatBytes, printJson } from "../output.js";
import { isoInstant } from "../../core/instant.js";

/**
 * `recall status`: coverage per source (as every search reports it), who is indexing, the last
 * indexing run's duration, index size, and tool-call figures from the audit log (content-free).
 */
export const statusCommand: CommandModule = {
  register(program: Command, ctx) {
    program
      .command("status")
      .description("index coverage per source, backlog, indexing and tool latency figures")
      .option("--json", "print JSON")
      .option("--check", "also check the whole index for damage (SQLite quick_check and FTS5's own check)")
      .action(async (flags: { json?: boolean; check?: boolean }) => {
        const { home } = ctx();
        // An invalid config.json stops `recall mcp` and `recall index`: say so here, not what to run.
        let configError: string | null = null;
        try {
          ctx().config();
        } catch (error) {
          if (!isRecallError(error)) throw error;
          configError = error.message;
        }
        const store = await openIndexToRead(home).catch((error: unknown) => {
          // "Run `recall index`" would fail on the config: its error is the one to fix first.
          if (configError && isRecallError(error) && error.kind === "NotFound")
            throw new RecallError("Config", configError);
          throw error;
        });
        try {
          // Damage found here is the same error every surface gives (store/damage.ts), exit 1.
          const started = performance.now();
          if (flags.check) checkIndex(store.db, store.file);
          const check = flags.check ? { ok: true, ms: Math.round(performance.now() - started) } : null;
          const now = Date.now();
          const published = readPublishedCoverage(store.db);
          // Why this recall will not index into history.db (a newer one built it), or null.
          const indexRefused = indexWrittenByNewer(store.db);
          const status = {
            index: { file: store.file, engine: store.engine, bytes: statSync(store.file).size },
            broker: await brokerState(home),
            coverage: readCoverage(store.db, now),
            lastRun: published?.lastRun ?? null,
            rebuilding: rebuildingNow(published, now),
            sources: sourceCoverage(store.db),
            // Files and folders the indexer could not read when it last published (some by name).
            unreadable: Object.fromEntries(
              (published?.sources ?? []).flatMap((p) => (p.unreadable ? [[p.source, p.unreadable]] : [])),
            ) as Record<string, { count: number; paths: string[] }>,
            toolCalls: toolFigures(readAudit(home, 1000)),
            // The audit is best effort: failed writes are counted, never fail a call.
            audit: { failures: readAuditFailures(home), problem: auditLogProblem(home) },
            check,
            configError,
            indexRefused,
            redaction: redactionState(store.db, configError ? null : ctx().config()),
            // The embedded index's kill switches (docs/embedding.md), as this process's environment sets them.
            switches: splitSwitches(),
          };
          if (flags.json) return printJson(status);
          const out: string[] = [];
          out.push(`index ${status.index.file} (${status.index.engine}, ${formatBytes(status.index.bytes)})`);
          if (status.check) out.push(`index check: ok (${(status.check.ms / 1000).toFixed(1)} s)`);
          out.push(
            status.broker.running
              ? `broker running${status.broker.pid ? ` (pid ${status.broker.pid})` : ""}${status.broker.busy ? ", busy with a foreground command" : ""}`
              : configError
                ? `no broker running, and none can start until the config is fixed: ${configError}`
                : indexRefused
                  ? "no broker running"
                  : "no broker running: start `recall mcp` (or run `recall index`) to bring the index up to date",
          );
          const switchesOn = describeSwitches(status.switches);
          out.push(`kill switches: ${switchesOn.length ? switchesOn.join("; ") : "none set"}`);
          if (status.rebuilding) out.push("rebuilding the index (searches say `indexing` until it is done)");
          if (indexRefused) out.push(indexRefused);
          if (status.redaction && !status.redaction.enabled)
            out.push(
              "redaction is OFF (config.json redaction.enabled is false): secrets in transcripts are indexed " +
                "and returned verbatim to every agent and page that searches or reads them",
            );
          if (status.redaction?.rebuildPending && !status.rebuilding)
            out.push(
              "redaction settings changed since the index was written: it is rebuilt when its writer starts " +
                "(`recall mcp` or `recall index`)",
            );
          if (status.lastRun) {
            out.push(
              `last indexing run: ${status.lastRun.records} records in ${status.lastRun.batches} batches, ` +
                `${(status.lastRun.ms / 1000).toFixed(1)} s, finished ${isoInstant(status.lastRun.finishedAt)?.slice(0, 16) ?? "?"}`,
            );
          }
          const states = new Map(status.coverage.map((c) => [c.source, c]));
          for (const s of status.sources) {
            const through = isoInstant(s.indexedThrough)?.slice(0, 16) ?? "—";
            const state =
              states.get(s.source)?.state ?? (s.backlogFiles > 0 || !s.discovered ? "indexing" : "ready");
            out.push(
              `  ${sourceLabel(s.source, SOURCES).padEnd(34)} ${state.padEnd(9)} through ${through}  files ${s.filesKnown}  backlog ${s.backlogFiles}  ` +
                `docs ${s.documents}  oversized ${s.oversized}  skipped ${s.skipped}  raw ${formatBytes(s.raw.stored)}` +
                (s.raw.prunedChunks > 0 ? ` (${formatBytes(s.raw.prunedBytes)} pruned)` : "") +
                // A file found shrunk or rewritten keeps its earlier version: said, never hidden.
                (s.rewritten > 0 ? `  rewritten ${s.rewritten} (earlier versions kept)` : ""),
            );
            const unreadable = status.unreadable[s.source];
            if (unreadable) {
              out.push(`    cannot read ${unreadable.count} files or folders (their history is missing):`);
              for (const p of unreadable.paths) out.push(`      ${p}`);
            }
          }
          const t = status.toolCalls;
          out.push(
            `tool calls ${t.count} (p50 ${t.p50Ms ?? "—"} ms, p95 ${t.p95Ms ?? "—"} ms, errors ${t.errors}, ` +
              `truncated ${t.truncated}, empty ${t.empty})`,
          );
          const audit = status.audit;
          if (audit.failures.count > 0 || audit.problem)
            out.push(
              `audit log: ${audit.failures.count} failed writes` +
                (audit.failures.lastError ? ` (last ${audit.failures.lastError})` : "") +
                (audit.problem ? `; cannot be written now (${audit.problem})` : "") +
                " — tool calls were answered; their audit lines are missing",
            );
          for (const [tool, g] of Object.entries(t.byTool)) {
            out.push(
              `  ${tool.padEnd(16)} ${g.count} calls, p50 ${g.p50Ms ?? "—"} ms, p95 ${g.p95Ms ?? "—"} ms, ${g.results} results`,
            );
          }
          process.stdout.write(`${out.join("\n")}\n`);
        } finally {
          store.close();
        }
      });
  },
};
