/**
 * Shared setup for the transcript source tests (test/sources-*.test.ts): a temporary HOME
 * with the CLIs' folders, a fresh index, and helpers to run backfills and searches.
 */
import { cpSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fixedClock, type Clock } from "../src/core/clock.js";
import { ConfigSchema } from "../src/config/schema.js";
import { backfill, runTick, type BackfillResult, type BatchLimits } from "../src/indexer/backfill.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { searchHistory, type HistoryHit } from "../src/search/history.js";
import type { DocumentFilters } from "../src/search/filters.js";
import { createSources } from "../src/sources/readers.js";
import type { Source } from "../src/sources/types.js";
import { openHistoryStore, type HistoryStore } from "../src/store/history-store.js";
import { tempDir } from "./helpers/tmp.js";
import { useDocumentText } from "./helpers/document-text.js";

export interface Harness {
  home: string;
  recallHome: string;
  env: Record<string, string>;
  store: HistoryStore;
  sources: Source[];
  clock: Clock & { advance(ms: number): void };
  index(options?: {
    limits?: Partial<BatchLimits>;
    rawMaxBytesPerSource?: number | null;
    maxLineBytes?: number;
  }): BackfillResult;
  tick(limits?: Partial<BatchLimits>): ReturnType<typeof runTick>;
  /** Recreates the sources (a new process: in-memory state gone, committed checkpoints kept). */
  restart(options?: { maxLineBytes?: number }): void;
  search(query: string, filters?: DocumentFilters, limit?: number): HistoryHit[];
  count(sql: string, ...params: unknown[]): number;
  /** The source's malformed counter (0 before its first batch). */
  malformed(source: string): number;
  close(): void;
}

export const claudeProjects = (home: string) => path.join(home, ".claude", "projects");
export const codexSessions = (home: string) => path.join(home, ".codex", "sessions");
export const opencodeData = (home: string) => path.join(home, ".local", "share", "opencode");

export async function createHarness(
  options: { engine?: "fts5" | "plain"; maxLineBytes?: number; home?: string } = {},
): Promise<Harness> {
  const t = tempDir("recall-sources-");
  const home = options.home ?? path.join(t.dir, "home");
  const recallHome = path.join(t.dir, "recall");
  mkdirSync(home, { recursive: true });
  const env = { HOME: home };
  const store = await openHistoryStore({
    home: recallHome,
    projectionVersion: PROJECTION_VERSION,
    engine: options.engine,
  });
  let now = Date.UTC(2026, 9, 1);
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const config = ConfigSchema.parse({});
  const make = (maxLineBytes?: number) =>
    createSources(env, config, maxLineBytes !== undefined ? { maxLineBytes } : {});
  const harness: Harness = {
    home,
    recallHome,
    env,
    store,
    sources: make(options.maxLineBytes),
    clock,
    index(opts = {}) {
      return backfill(store.db, harness.sources, {
        projectionVersion: PROJECTION_VERSION,
        clock,
        limits: opts.limits,
        rawMaxBytesPerSource: opts.rawMaxBytesPerSource ?? null,
        // As `recall index` runs: an empty index's first backfill defers its indexes.
        deferReadIndexes: true,
      });
    },
    tick(limits) {
      return runTick(store.db, harness.sources, { projectionVersion: PROJECTION_VERSION, clock, limits });
    },
    restart(opts = {}) {
      for (const s of harness.sources) s.close?.();
      harness.sources = make(opts.maxLineBytes ?? options.maxLineBytes);
    },
    search(query, filters = {}, limit = 50) {
      return searchHistory(store.db, store.engine, query, filters, limit).hits.filter((h) => !h.relaxed);
    },
    count(sql, ...params) {
      useDocumentText(store.db);
      const row = store.db.prepare(sql).get(...params) as Record<string, number>;
      return Number(Object.values(row)[0]);
    },
    malformed(source) {
      return harness.count(
        "SELECT coalesce(sum(malformed), 0) FROM recall_source_stats WHERE source = ?",
        source,
      );
    },
    close() {
      for (const s of harness.sources) s.close?.();
      store.close();
      t.cleanup();
    },
  };
  return harness;
}

/** Every `home` folder under the real fixtures (one per CLI variant). */
export function fixtureHomes(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (!statSync(full).isDirectory()) continue;
      if (name === "home") out.push(full);
      else if (depth < 3) walk(full, depth + 1);
    }
  };
  walk(root, 0);
  return out.sort();
}

/** Copies a fixture home into the harness HOME (files stay read-only as in the fixtures). */
export function copyHome(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

export { fixedClock };
