import type { AuditRecord } from "../audit/audit-log.js";
import type { Config } from "../config/schema.js";
import { askBroker } from "../indexer/broker.js";
import { storedRedactionFingerprint, writtenByNewer } from "../indexer/derived-versions.js";
import { compileRedaction, PROJECTION_VERSION } from "../projection/index.js";
import { agentChoices } from "../sources/derive.js";
import { SOURCES } from "../sources/registry.js";
import type { Db } from "../store/open.js";

/**
 * The figures `recall status`, `recall index` and the dashboard report: coverage per source,
 * whether a rebuild runs, who writes the index, tool-call figures from the audit log.
 */
export { sourceCoverage, type SourceCoverage } from "../indexer/coverage.js";
export { readCoverage, readPublishedCoverage, rebuildingNow } from "../store/coverage-row.js";

/** The agent filter's choices by display name, for the dashboard's picker. */
export const AGENT_CHOICES = agentChoices(SOURCES);

/** Why this build must not touch the index (a newer recall wrote it), or null. */
export function indexWrittenByNewer(db: Db): string | null {
  return writtenByNewer(db, PROJECTION_VERSION);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Content-free figures of the tool calls in the audit log (one group per tool). */
export function toolFigures(calls: AuditRecord[]) {
  const group = (rows: AuditRecord[]) => {
    const durations = rows.map((c) => c.durationMs).sort((a, b) => a - b);
    return {
      count: rows.length,
      p50Ms: percentile(durations, 50),
      p95Ms: percentile(durations, 95),
      p99Ms: percentile(durations, 99),
      errors: rows.filter((c) => !c.ok).length,
      truncated: rows.filter((c) => c.truncated).length,
      results: rows.reduce((n, c) => n + (c.results ?? 0), 0),
      empty: rows.filter((c) => c.ok && c.results === 0).length,
    };
  };
  const tools = [...new Set(calls.map((c) => c.tool))].sort();
  return {
    ...group(calls),
    byTool: Object.fromEntries(tools.map((t) => [t, group(calls.filter((c) => c.tool === t))])),
  };
}

/**
 * Whether secrets are redacted (config.json `redaction`), and whether the index's text was
 * written with other settings (it is rebuilt when its writer starts). Null: config.json is invalid.
 */
export function redactionState(db: Db, config: Config | null) {
  if (!config) return null;
  const redaction = compileRedaction(config.redaction);
  return {
    enabled: redaction.enabled,
    patterns: config.redaction.patterns.length,
    allowed: config.redaction.allow.length,
    // An index without records has no text to rewrite (its first writer notes the settings).
    rebuildPending:
      storedRedactionFingerprint(db) !== redaction.fingerprint &&
      db.prepare("SELECT 1 FROM recall_records LIMIT 1").get() !== undefined,
  };
}

/** Who writes the index right now: a broker answering on the local channel, or nobody. */
export async function brokerState(
  home: string,
): Promise<{ running: boolean; pid: number | null; busy: boolean }> {
  try {
    const answer = (await askBroker(home, { command: "ping" }, { timeoutMs: 2000 })) as {
      pid?: number;
      busy?: boolean;
    } | null;
    if (answer === null) return { running: false, pid: null, busy: false };
    return { running: true, pid: answer.pid ?? null, busy: answer.busy === true };
  } catch {
    return { running: true, pid: null, busy: true };
  }
}
