import path from "node:path";
import { performance } from "node:perf_hooks";
import { RecallError } from "../core/errors.js";
import {
  droppedTo,
  dropLegacyTable,
  legacyDropped,
  legacyLeft,
  markLegacyDropped,
} from "../store/embedded-schema.js";
import {
  applyLogStep,
  dropQueueCopies,
  openSplitTarget,
  recordedPhase,
  rowPace,
  splitMeta,
} from "../store/history-split.js";
import { backupDatabase, backupStamp } from "../store/migrate.js";
import { openDatabase, type Db } from "../store/open.js";
import { hasSplitLog, removeSplitTriggers } from "../store/split-log.js";
import { defaultHistoryFile, SPLIT_DEFAULTS } from "./history-split.js";
import { splitSwitches } from "./split-switches.js";

export interface DropLegacyOptions {
  hostFile: string;
  /** history.db's path (default: defaultHistoryFile). */
  to?: string;
  backupDir?: string;
  clock?: () => number;
  /** Called after each stage (tests: kill between them). */
  onStage?: (stage: "backup" | "marked" | "applied" | "dropped-table") => void;
}

export interface DropLegacyReport {
  status: "dropped";
  history: string;
  /** The host's protected backup taken before anything was removed (null when a resumed drop had one). */
  backup: string | null;
  /** The tables removed from the host by this run. */
  dropped: string[];
  /** recall's tables the host keeps (the version record, the dirty queues, the mark). */
  kept: string[];
  /** The longest single DROP TABLE, ms: one statement each, not bounded (see docs/history-split.md). */
  longestDropMs: number;
  totalMs: number;
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `recall split --drop-legacy`: once history.db is verified and switched to, recall's legacy
 * tables leave the host's database. In order, each resumable after a kill:
 *
 * 1. its own protected backup of the host (the shared executor's, in bounded steps);
 * 2. under the host's write lock: the split log's triggers go (nothing more is logged), the
 *    hooks that wrote recall_documents queue instead, and the host is marked as dropped;
 * 3. what the log still holds is applied to history.db, whose copies of the queues go (the
 *    host's are the live ones: its indexer now writes history.db and drains the host's queues);
 * 4. each legacy table is dropped in its own transaction (the log last but one: the mark stays).
 *
 * The host's own tables are not touched (DROP TABLE frees the dropped tables' pages only; the
 * file keeps its size until the host reuses them or runs VACUUM).
 */
export async function dropLegacy(options: DropLegacyOptions): Promise<DropLegacyReport> {
  const started = performance.now();
  const clock = options.clock ?? Date.now;
  const host = openDatabase(options.hostFile, { keepJournalMode: true });
  try {
    const to = path.resolve(droppedTo(host) ?? options.to ?? defaultHistoryFile(options.hostFile));
    requireVerified(to, options.hostFile);
    // Readers told to stay on the legacy tables would lose them: the operator unsets it first.
    if (splitSwitches().readLegacy && !legacyDropped(host))
      throw new RecallError(
        "Usage",
        "--drop-legacy: RECALL_SPLIT_READ=legacy keeps readers on the legacy tables; unset it first",
      );
    let backup: string | null = null;
    if (!legacyDropped(host)) {
      const dir = options.backupDir ?? `${options.hostFile}.recall-backups`;
      backup = path.join(dir, `${path.basename(options.hostFile)}.drop-legacy.${backupStamp(clock())}.bak`);
      await backupDatabase(host, backup, { budgetMs: SPLIT_DEFAULTS.maxMs / 5 });
      options.onStage?.("backup");
      const mark = { history: to, at: new Date(clock()).toISOString(), backup };
      host
        .transaction(() => {
          removeSplitTriggers(host);
          markLegacyDropped(host, mark);
        })
        .immediate();
      options.onStage?.("marked");
    }
    await applyRest(to, options.hostFile, new Date(clock()).toISOString());
    options.onStage?.("applied");
    const dropped: string[] = [];
    let longestDropMs = 0;
    for (const name of legacyLeft(host)) {
      const t0 = performance.now();
      dropLegacyTable(host, name);
      longestDropMs = Math.max(longestDropMs, performance.now() - t0);
      dropped.push(name);
      options.onStage?.("dropped-table");
      await yieldNow();
    }
    const kept = (
      host
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'recall%' ORDER BY name")
        .all() as { name: string }[]
    ).map((r) => r.name);
    return {
      status: "dropped",
      history: to,
      backup,
      dropped,
      kept,
      longestDropMs,
      totalMs: performance.now() - started,
    };
  } finally {
    host.close();
  }
}

/** Refuses, in one line, a drop whose history.db has not verified and switched. */
function requireVerified(to: string, hostFile: string): void {
  const phase = recordedPhase(to);
  if (phase === "switched") return;
  throw new RecallError(
    "Usage",
    `--drop-legacy: ${to} is ${phase === null ? "not a split's history.db" : `a split that has not verified (${phase})`}; run \`recall split --db ${hostFile}\` until it reports the switch first`,
  );
}

/** Step 3: the frozen log applied to history.db a bounded step at a time, then its queue copies go. */
async function applyRest(to: string, hostFile: string, at: string): Promise<void> {
  const db: Db = openSplitTarget(to, hostFile);
  try {
    if (hasSplitLog(db, "legacy"))
      while (applyLogStep(db, rowPace(SPLIT_DEFAULTS.maxRows)) > 0) await yieldNow();
    if (splitMeta(db, "legacy_dropped_at") === undefined) dropQueueCopies(db, at);
  } finally {
    db.close();
  }
}
