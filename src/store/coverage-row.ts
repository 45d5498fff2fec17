import type { Db } from "./open.js";
import { getMeta, setMeta } from "./meta.js";
import { statement } from "./statements.js";

/**
 * Published coverage: where every source stands, as the index writer (the broker's worker, or
 * a foreground `recall index`/`recall reindex`) last saw it. The writer stores it as one JSON
 * row of recall_meta, so a search reads one cheap row and never counts anything.
 */
export const COVERAGE_KEY = "coverage";

/**
 * A publication older than this means no indexer is running: the writer republishes at least
 * every few seconds while it runs (see indexer/worker.ts).
 */
export const COVERAGE_STALE_MS = 30_000;

export interface PublishedSource {
  source: string;
  /** Work waiting when published: a discovery not yet complete, files or rows not yet read. */
  indexing: boolean;
  /** Newest record time indexed for this source (epoch ms), or null. */
  indexedThrough: number | null;
  /** Files, databases or sessions with bytes or rows not read yet. */
  backlog: number;
  backlogBytes: number;
  filesKnown: number;
  discovered: boolean;
  /** Files and folders that cannot be read now: how many, and some by name. */
  unreadable?: { count: number; paths: string[] };
}

export interface PublishedCoverage {
  v: 1;
  /** When it was written (epoch ms). */
  publishedAt: number;
  /** Who wrote it: the broker's background worker, or a foreground command. */
  writer: "broker" | "foreground";
  pid: number;
  /** A reindex is under way. */
  rebuilding: boolean;
  /**
   * The last indexing run that ran to idle: a catch-up (a first backfill, `recall index`, a
   * reindex) or a stretch of the background loop from its first records to every source idle.
   */
  lastRun: { records: number; batches: number; ms: number; finishedAt: number } | null;
  sources: PublishedSource[];
}

/**
 * Whether a rebuild is under way: the writer said so and still publishes. A writer killed
 * mid-rebuild (SIGKILL, a crash) leaves `rebuilding` set in its last row, which is then stale.
 */
export function rebuildingNow(published: PublishedCoverage | null, now: number): boolean {
  return published !== null && published.rebuilding && now - published.publishedAt <= COVERAGE_STALE_MS;
}

/**
 * What every search_history response carries per source: `indexing` (work waiting),
 * `ready` (caught up when last checked), `incomplete` (caught up with everything it can read,
 * but `unreadable` files or folders could not be read: their history is missing until they
 * can; `recall status` names them), or `stale` (no indexer has checked for a while: history
 * written since may be missing until `recall mcp` or `recall index` runs).
 */
export interface CoverageEntry {
  source: string;
  state: "indexing" | "ready" | "incomplete" | "stale";
  indexedThrough: number | null;
  backlog: number;
  /** Files and folders that could not be read (only when there are any). */
  unreadable?: number;
}

/**
 * search_history's `coverage` when every source is `ready`: one small object (how many sources,
 * and the newest record time indexed across them) instead of an entry per source, so an answer
 * spends its tokens on hits. About 60 characters where three sources' entries take about 250.
 */
export interface CoverageAllReady {
  state: "ready";
  sources: number;
  indexedThrough: number | null;
}

/**
 * search_history's `coverage`: CoverageAllReady when every source is caught up; otherwise (a
 * source indexing, incomplete or stale, or nothing indexed yet) the entry of every source, so an
 * agent sees which one is behind and why.
 */
export type SearchCoverage = CoverageAllReady | CoverageEntry[];

export function searchCoverage(entries: CoverageEntry[]): SearchCoverage {
  if (entries.length === 0 || entries.some((e) => e.state !== "ready")) return entries;
  let indexedThrough: number | null = null;
  for (const e of entries)
    if (e.indexedThrough !== null && (indexedThrough === null || e.indexedThrough > indexedThrough))
      indexedThrough = e.indexedThrough;
  return { state: "ready", sources: entries.length, indexedThrough };
}

export function writeCoverage(db: Db, coverage: PublishedCoverage): void {
  setMeta(db, COVERAGE_KEY, JSON.stringify(coverage));
}

export function readPublishedCoverage(db: Db): PublishedCoverage | null {
  const value = getMeta(db, COVERAGE_KEY);
  if (value === undefined) return null;
  try {
    const parsed = JSON.parse(value) as PublishedCoverage;
    return parsed?.v === 1 && Array.isArray(parsed.sources) ? parsed : null;
  } catch {
    return null;
  }
}

interface StatsRow {
  source: string;
  backlog: number | null;
  discovered: number;
  updatedAt: number | null;
}

/**
 * Coverage for a response: the published row; for an index no writer has published to yet,
 * the per-source counters every batch updates (one small row per source).
 */
export function readCoverage(db: Db, now: number): CoverageEntry[] {
  const published = readPublishedCoverage(db);
  if (published) {
    const stale = now - published.publishedAt > COVERAGE_STALE_MS;
    return published.sources.map((s) => {
      const unreadable = s.unreadable?.count ?? 0;
      return {
        source: s.source,
        state: stale ? "stale" : s.indexing ? "indexing" : unreadable > 0 ? "incomplete" : "ready",
        indexedThrough: s.indexedThrough,
        backlog: s.backlog,
        ...(unreadable > 0 ? { unreadable } : {}),
      };
    });
  }
  const rows = statement(
    db,
    `SELECT source, backlog_files AS backlog, discovered, updated_at AS updatedAt
     FROM recall_source_stats ORDER BY source`,
  ).all() as StatsRow[];
  return rows.map((r) => ({
    source: r.source,
    state:
      r.updatedAt === null || now - r.updatedAt > COVERAGE_STALE_MS
        ? "stale"
        : (r.backlog ?? 0) > 0 || r.discovered !== 1
          ? "indexing"
          : "ready",
    indexedThrough: null,
    backlog: r.backlog ?? 0,
  }));
}
