/**
 * The contract every source keeps, run on each registered source with its fixture
 * (test/sources-contract.test.ts) and on a toy source registered the way a new one is
 * (test/sources-registry.test.ts). Real files and databases in a temporary HOME, a real index.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/platform/paths.js";
import { ConfigSchema, type Config } from "../../src/config/schema.js";
import { backfill, type BatchLimits } from "../../src/indexer/backfill.js";
import { forget } from "../../src/indexer/forget.js";
import { PROJECTION_VERSION } from "../../src/projection/index.js";
import { searchHistory } from "../../src/search/history.js";
import type { ReadableSource } from "../../src/sources/definition.js";
import { sourcesConfigSchema } from "../../src/sources/derive.js";
import { createSources } from "../../src/sources/readers.js";
import type { Source } from "../../src/sources/types.js";
import { openHistoryStore, type HistoryStore } from "../../src/store/history-store.js";
import { documentRows } from "./document-text.js";
import { tempDir } from "./tmp.js";

export interface ContractFixture {
  /** Which of the source's stores this fixture writes, when it reads several. */
  label?: string;
  /** Writes a history of at least two conversations into a HOME (env.HOME), then closes every handle. */
  write(env: Env): void;
  /** One word per record `write` wrote, each found by a search once indexed. */
  tokens: string[];
  /** A session `recall forget` removes, and words only its records hold. */
  forget: { session: string; tokens: string[] };
  /** Deletes the source's files as a CLI's clean-up does (absent: deleting is the user's own deletion). */
  remove?(env: Env): void;
  /** Line-based sources: a last line cut short (`begin`), then written whole (`finish`). */
  torn?: { begin(env: Env): void; finish(env: Env): void; token: string };
  /** Sources with a line bound: a record over `maxLineBytes`, holding `token`. */
  oversized?: { write(env: Env): void; token: string; bytes: number; maxLineBytes: number };
}

/** One definition over a fresh index and HOME (its sources made by `restart`), indexed with a clock past every settle interval. */
export interface Run {
  env: Env;
  home: string;
  store: HistoryStore;
  sources: Source[];
  now: number;
  restart(maxLineBytes?: number): void;
  index(limits?: Partial<BatchLimits>): void;
  found(token: string): number;
  state(): { documents: unknown[]; records: unknown[] };
  close(): void;
}

const T0 = Date.UTC(2026, 9, 1);

export async function openSourceRun(definition: ReadableSource, maxLineBytes?: number): Promise<Run> {
  const t = tempDir("recall-contract-");
  const home = path.join(t.dir, "home");
  const env: Env = { HOME: home };
  const store = await openHistoryStore({
    home: path.join(t.dir, "recall"),
    projectionVersion: PROJECTION_VERSION,
  });
  const config = {
    ...ConfigSchema.parse({}),
    sources: sourcesConfigSchema([definition]).parse({}),
  } as Config;
  const make = (bound?: number) =>
    createSources(env, config, bound !== undefined ? { maxLineBytes: bound } : {}, [definition]);
  const run: Run = {
    env,
    home,
    store,
    sources: [],
    now: T0,
    restart(bound = maxLineBytes) {
      for (const s of run.sources) s.close?.();
      run.sources = make(bound);
    },
    index(limits) {
      // Past every settle and rediscovery interval: each index sees the files as they are now.
      run.now += 10 * 60_000;
      const clock = { now: () => run.now };
      backfill(store.db, run.sources, {
        projectionVersion: PROJECTION_VERSION,
        clock,
        limits,
        rawMaxBytesPerSource: null,
      });
    },
    found(token) {
      return searchHistory(store.db, store.engine, token, {}, 50).hits.filter((h) => !h.relaxed).length;
    },
    state() {
      const documents = documentRows(
        store.db,
        "d.hit_id, d.source, d.source_key, d.conversation, d.kind, d.role, d.at, d.agent, d.session, d.project, d.title",
        "ORDER BY d.source, d.source_key",
      );
      const records = store.db
        .prepare(
          "SELECT conversation, record_key, hit_id, role, at, text FROM recall_records ORDER BY conversation, record_key",
        )
        .all();
      return { documents, records };
    },
    close() {
      for (const s of run.sources) s.close?.();
      store.close();
      t.cleanup();
    },
  };
  run.sources = make(maxLineBytes);
  return run;
}

/** Every file under a folder with its bytes' hash (SQLite's -shm beside a WAL database left out: the accepted side effect). */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else if (!name.endsWith("-shm"))
        out.set(full, createHash("sha256").update(readFileSync(full)).digest("hex"));
    }
  };
  walk(root);
  return out;
}

/** Registers the contract's tests for one source definition. */
export function sourceContract(definition: ReadableSource, fixture: ContractFixture): void {
  describe(`source contract: ${definition.name}${fixture.label ? ` (${fixture.label})` : ""}`, () => {
    const runs: Run[] = [];
    const start = async (maxLineBytes?: number) => {
      const run = await openSourceRun(definition, maxLineBytes);
      runs.push(run);
      return run;
    };
    afterEach(() => {
      for (const run of runs.splice(0)) run.close();
    });

    it("leaves its source files byte for byte unchanged", async () => {
      const run = await start();
      fixture.write(run.env);
      const before = snapshot(run.home);
      expect(before.size).toBeGreaterThan(0);
      run.index();
      run.restart();
      run.index();
      const after = snapshot(run.home);
      for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
      // Nothing new either, besides a WAL database's -shm (left out above) and the empty -wal a
      // reader of a WAL database creates when its writer removed it on close.
      const added = [...after.keys()].filter(
        (f) => !before.has(f) && !(f.endsWith("-wal") && statSync(f).size === 0),
      );
      expect(added.map((f) => path.relative(run.home, f))).toEqual([]);
    });

    it("indexes every record once, and reading again changes nothing", async () => {
      const run = await start();
      fixture.write(run.env);
      run.index();
      for (const token of fixture.tokens) expect(run.found(token), token).toBe(1);
      const first = run.state();
      expect(first.documents.length).toBeGreaterThanOrEqual(fixture.tokens.length);
      run.index();
      expect(run.state()).toEqual(first);
      run.restart();
      run.index();
      expect(run.state()).toEqual(first);
    });

    it("resumed from every checkpoint, in a new process each batch, ends as one read does", async () => {
      const once = await start();
      fixture.write(once.env);
      once.index();
      const stepwise = await start();
      fixture.write(stepwise.env);
      const tiny = { maxRecords: 1, maxBytes: 64, maxEntries: 1, maxSessionRows: 1, maxFiles: 1 };
      for (let i = 0; i < 200; i++) {
        const before = stepwise.state();
        stepwise.restart();
        stepwise.index(tiny);
        if (i > 0 && JSON.stringify(stepwise.state()) === JSON.stringify(before)) break;
      }
      const relative = (run: Run) =>
        JSON.parse(JSON.stringify(run.state()).split(run.home).join("~")) as unknown;
      expect(relative(stepwise)).toEqual(relative(once));
    });

    it.runIf(fixture.remove !== undefined)("keeps the records of a deleted file", async () => {
      const run = await start();
      fixture.write(run.env);
      run.index();
      const kept = run.state();
      fixture.remove?.(run.env);
      run.index();
      run.restart();
      run.index();
      expect(run.state()).toEqual(kept);
      for (const token of fixture.tokens) expect(run.found(token), token).toBe(1);
    });

    it.runIf(fixture.torn !== undefined)(
      "holds back a torn last line and reads it once it is whole",
      async () => {
        const run = await start();
        fixture.write(run.env);
        fixture.torn?.begin(run.env);
        run.index();
        expect(run.found(fixture.torn!.token)).toBe(0);
        fixture.torn?.finish(run.env);
        run.index();
        expect(run.found(fixture.torn!.token)).toBe(1);
        run.restart();
        run.index();
        expect(run.found(fixture.torn!.token)).toBe(1);
      },
    );

    it.runIf(fixture.oversized !== undefined)(
      "discards an oversized record, counts it and retains its bytes",
      async () => {
        const o = fixture.oversized!;
        const run = await start(o.maxLineBytes);
        fixture.write(run.env);
        o.write(run.env);
        run.index();
        expect(run.found(o.token)).toBe(0);
        for (const token of fixture.tokens) expect(run.found(token), token).toBe(1);
        const stats = run.store.db
          .prepare("SELECT coalesce(sum(oversized), 0) AS oversized FROM recall_source_stats")
          .get() as { oversized: number };
        expect(stats.oversized).toBeGreaterThanOrEqual(1);
        const raw = run.store.db
          .prepare("SELECT coalesce(sum(length), 0) FROM recall_raw_chunks")
          .pluck()
          .get() as number;
        expect(raw).toBeGreaterThan(o.bytes);
      },
    );

    it("does not bring a forgotten session back on a rescan", async () => {
      const run = await start();
      fixture.write(run.env);
      run.index();
      for (const token of fixture.forget.tokens) expect(run.found(token), token).toBe(1);
      forget(run.store.db, { session: fixture.forget.session }, run.now);
      for (const token of fixture.forget.tokens) expect(run.found(token), token).toBe(0);
      run.index();
      run.restart();
      run.index();
      for (const token of fixture.forget.tokens) expect(run.found(token), token).toBe(0);
      const others = fixture.tokens.filter((t) => !fixture.forget.tokens.includes(t));
      expect(others.length).toBeGreaterThan(0);
      for (const token of others) expect(run.found(token), token).toBe(1);
    });
  });
}
