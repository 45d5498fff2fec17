/**
 * A foreground first backfill builds the read-only secondary indexes once at its end
 * (store/read-indexes.ts): they are absent while it runs, all back when it ends or stops, kept
 * when the index already held documents (and, after a reindex reset, for the retained records
 * and raw chunks), and rebuilt by the next writer after an interruption.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { backfill } from "../src/indexer/backfill.js";
import { WRITER_CACHE_KIB } from "../src/indexer/ingest.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { resetDerived } from "../src/indexer/rebuild.js";
import { openHistoryStore, readyWriter } from "../src/store/history-store.js";
import {
  dropReadIndexesIfEmpty,
  ensureReadIndexes,
  READ_INDEX_DEFINITIONS,
} from "../src/store/read-indexes.js";
import { claudeProjects, createHarness, type Harness } from "./sources-harness.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const indexName = (sql: string) => / INDEX (\S+) /.exec(sql)![1]!;
const names = READ_INDEX_DEFINITIONS.map(indexName);

function presentIndexes(h: Harness): string[] {
  const rows = h.store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as {
    name: string;
  }[];
  return rows.map((r) => r.name).filter((n) => names.includes(n));
}

/**
 * FTS5's merge setting, and how many segments hold its postings: FTS5 numbers a segment's pages
 * from segid << 37 (fts5Int.h, fts5_dri), below that only its averages and structure records.
 */
function ftsState(db: Database.Database): {
  automerge: unknown;
  hashsize: unknown;
  segments: number;
  deferredNote: boolean;
} {
  const config = (k: string) =>
    db.prepare("SELECT v FROM recall_fts_config WHERE k = ?").pluck().get(k) ?? null;
  return {
    automerge: config("automerge"),
    hashsize: config("hashsize"),
    segments: db
      .prepare("SELECT count(DISTINCT id >> 37) FROM recall_fts_data WHERE id >= 1 << 37")
      .pluck()
      .get() as number,
    deferredNote:
      db.prepare("SELECT 1 FROM recall_meta WHERE key = 'fts_merges_deferred'").get() !== undefined,
  };
}

function writeSessions(h: Harness, sessions: number): void {
  const dir = path.join(claudeProjects(h.home), "-nonexistent-recall-test-proj");
  mkdirSync(dir, { recursive: true });
  for (let s = 0; s < sessions; s++) {
    const session = `5f0c1a2b-3c4d-4e5f-8a6b-${String(s).padStart(12, "0")}`;
    const lines = Array.from({ length: 5 }, (_, i) =>
      claudeLine({ uuid: `u${s}-${i}`, session, text: `heron note ${s} ${i}`, at: BASE_TIME + s * 10 + i }),
    );
    writeFileSync(path.join(dir, `${session}.jsonl`), lines.join(""));
  }
}

describe("read indexes deferred by a foreground first backfill", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  const run = (harness: Harness, options: { shouldStop?: () => boolean; onGroupEnd?: () => void } = {}) =>
    backfill(harness.store.db, harness.sources, {
      projectionVersion: PROJECTION_VERSION,
      clock: harness.clock,
      deferReadIndexes: true,
      limits: { maxRecords: 5 },
      group: { records: 5, millis: 10_000 },
      ...options,
    });

  it("are the schema's own definitions", async () => {
    h = await createHarness();
    for (const sql of READ_INDEX_DEFINITIONS) {
      const name = indexName(sql);
      const row = h.store.db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(name) as
        { sql: string } | undefined;
      expect(row?.sql).toBe(sql);
    }
  });

  it("are absent during a first backfill and all back at its end, searches unchanged", async () => {
    h = await createHarness();
    writeSessions(h, 6);
    const seen: number[] = [];
    const harness = h;
    const result = run(h, { onGroupEnd: () => seen.push(presentIndexes(harness).length) });
    expect(result.records).toBe(30);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((n) => n === 0)).toBe(true);
    expect(presentIndexes(h).sort()).toEqual([...names].sort());
    expect(h.search("heron")).toHaveLength(30);
    expect(h.search("heron", { sessions: ["5f0c1a2b-3c4d-4e5f-8a6b-000000000003"] })).toHaveLength(5);
    expect(h.store.db.pragma("integrity_check", { simple: true })).toBe("ok");
    // The build's own settings (a file-backed sort, its cache) do not outlive it.
    expect(h.store.db.pragma("temp_store", { simple: true })).toBe(2);
    expect(h.store.db.pragma("cache_size", { simple: true })).toBe(-WRITER_CACHE_KIB);
  });

  it("are kept when the index already holds documents, and FTS5 merges as usual", async () => {
    h = await createHarness();
    writeSessions(h, 1);
    h.index();
    writeSessions(h, 4);
    h.clock.advance(60_000);
    const seen: number[] = [];
    const automerge: unknown[] = [];
    const harness = h;
    run(h, {
      onGroupEnd: () => {
        seen.push(presentIndexes(harness).length);
        automerge.push(ftsState(harness.store.db).automerge);
      },
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((n) => n === names.length)).toBe(true);
    expect(automerge.every((a) => a !== 0)).toBe(true);
  });

  it("defer FTS5's merges too: none while it runs, its segments merged into one at its end", async () => {
    h = await createHarness();
    writeSessions(h, 8);
    const harness = h;
    const during: ReturnType<typeof ftsState>[] = [];
    run(h, { onGroupEnd: () => during.push(ftsState(harness.store.db)) });
    // A larger pending hash meanwhile: fewer, larger segments for the closing merge.
    expect(during.every((s) => s.automerge === 0 && s.hashsize === 8 * 1024 * 1024 && s.deferredNote)).toBe(
      true,
    );
    // One segment per group flushed, never merged meanwhile (FTS5's default merges at 4).
    expect(Math.max(...during.map((s) => s.segments))).toBeGreaterThanOrEqual(6);
    expect(ftsState(h.store.db)).toEqual({
      automerge: 4,
      hashsize: 1024 * 1024,
      segments: 1,
      deferredNote: false,
    });
    expect(h.store.db.prepare("SELECT v FROM recall_fts_config WHERE k = 'crisismerge'").pluck().get()).toBe(
      16,
    );
    h.store.db.exec("INSERT INTO recall_fts (recall_fts) VALUES ('integrity-check')");
    expect(h.search("heron")).toHaveLength(40);
  });

  it("the writer elected after a first load killed mid-way restores FTS5's merging and merges what it left", async () => {
    h = await createHarness();
    writeSessions(h, 6);
    // What a killed load leaves: indexes dropped, merges off, segments flushed, nothing rebuilt.
    expect(dropReadIndexesIfEmpty(h.store.db)).toBe(true);
    for (let i = 0; i < 6; i++) h.tick({ maxRecords: 5 });
    const killed = ftsState(h.store.db);
    expect(killed.automerge).toBe(0);
    expect(killed.segments).toBeGreaterThanOrEqual(5);
    h.store.close();
    const reopened = await openHistoryStore({ home: h.recallHome, projectionVersion: PROJECTION_VERSION });
    try {
      readyWriter(reopened.db, { buildMissingIndexes: true }); // what the elected writer does
      expect(ftsState(reopened.db)).toEqual({
        automerge: 4,
        hashsize: 1024 * 1024,
        segments: 1,
        deferredNote: false,
      });
    } finally {
      reopened.close();
    }
  });

  it("after a reindex reset, none are dropped: documents are their retained records' rows", async () => {
    h = await createHarness();
    writeSessions(h, 4);
    h.index();
    resetDerived(h.store.db, ["claude-code", "codex", "opencode"]);
    h.restart();
    const seen: string[][] = [];
    const harness = h;
    const result = run(h, { onGroupEnd: () => seen.push(presentIndexes(harness).sort()) });
    expect(result.records).toBe(20);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((s) => JSON.stringify(s) === JSON.stringify([...names].sort()))).toBe(true);
    expect(presentIndexes(h).sort()).toEqual([...names].sort());
    expect(h.search("heron")).toHaveLength(20);
  });

  it("come back when a backfill is stopped, and when the next elected writer opens an interrupted index", async () => {
    h = await createHarness();
    writeSessions(h, 6);
    let groups = 0;
    const result = run(h, { onGroupEnd: () => (groups += 1), shouldStop: () => groups >= 2 });
    expect(result.records).toBeLessThan(30);
    expect(presentIndexes(h)).toHaveLength(names.length);

    // A process that died mid-backfill: indexes dropped, never rebuilt.
    const fresh = await createHarness();
    try {
      expect(dropReadIndexesIfEmpty(fresh.store.db)).toBe(true);
      fresh.store.close();
      const reopened = await openHistoryStore({
        home: fresh.recallHome,
        projectionVersion: PROJECTION_VERSION,
      });
      const present = () =>
        (
          reopened.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as {
            name: string;
          }[]
        ).map((r) => r.name);
      // Opening builds nothing: a reindex may be running in another process (it would lose the
      // write lock to the build); the elected writer builds them.
      expect(names.every((n) => present().includes(n))).toBe(false);
      readyWriter(reopened.db, { buildMissingIndexes: true });
      expect(names.every((n) => present().includes(n))).toBe(true);
      reopened.close();
    } finally {
      fresh.close();
    }
  });

  it("stay deferred when a file is replaced mid-load, which keeps its earlier version", async () => {
    h = await createHarness();
    writeSessions(h, 6);
    const dir = path.join(claudeProjects(h.home), "-nonexistent-recall-test-proj");
    const harness = h;
    const seen: string[][] = [];
    let groups = 0;
    let herons = 0;
    run(h, {
      onGroupEnd: () => {
        seen.push(presentIndexes(harness).sort());
        if (++groups !== 1) return;
        herons = harness.count("SELECT count(*) FROM recall_document_text WHERE body LIKE '%heron note%'");
        // Every session file replaced by a different, shorter one: a new version of each, read
        // beside what was read (no reset, so no read index is needed before the end).
        for (const file of readdirSync(dir)) {
          const session = file.slice(0, -".jsonl".length);
          writeFileSync(
            path.join(dir, file),
            claudeLine({ uuid: `r-${session}`, session, text: "replaced egret note", at: BASE_TIME + 1 }),
          );
        }
      },
    });
    expect(seen[0]).toEqual([]);
    expect(presentIndexes(h)).toHaveLength(names.length);
    expect(h.search("replaced egret")).toHaveLength(6);
    // What the first group read of the earlier files stays searchable.
    expect(herons).toBeGreaterThan(0);
    expect(h.search("heron note")).toHaveLength(herons);
  });

  it("end with a plain index of stored hit ids, which rows may share (records without a hit: '')", async () => {
    h = await createHarness();
    writeSessions(h, 1);
    h.index();
    const db = h.store.db;
    db.exec("DROP INDEX recall_documents_own_hit");
    db.exec(`UPDATE recall_record_rows SET own_hit_id = 'transcript:claude:shared'`);
    ensureReadIndexes(db);
    const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'recall_documents_own_hit'").get();
    expect(sql).toEqual({
      sql: "CREATE INDEX recall_documents_own_hit ON recall_record_rows (own_hit_id) WHERE own_hit_id IS NOT NULL",
    });
    expect(presentIndexes(h)).toHaveLength(names.length);
  });

  it("keep one document per key meanwhile, as the key index would: copied lines, resumed sessions, summaries", async () => {
    const write = (harness: Harness) => {
      const dir = path.join(claudeProjects(harness.home), "-nonexistent-recall-test-proj");
      mkdirSync(dir, { recursive: true });
      const session = (n: number) => `5f0c1a2b-3c4d-4e5f-8a6b-${String(n).padStart(12, "0")}`;
      for (let s = 0; s < 8; s++) {
        // Each session resumes the one before: its file starts with that one's lines, copied.
        let text = "";
        for (let c = Math.max(0, s - 2); c <= s; c++)
          for (let i = 0; i < 4; i++)
            text += claudeLine({
              uuid: `u${c}-${i}`,
              session: session(c),
              text: `osprey ${c} ${i}`,
              at: BASE_TIME + c * 10 + i,
            });
        text += `${JSON.stringify({ type: "summary", summary: `Osprey plan ${s}`, leafUuid: `u${s}-3` })}\n`;
        writeFileSync(path.join(dir, `${session(s)}.jsonl`), text);
      }
    };
    const documents = (harness: Harness) =>
      harness.store.db
        .prepare("SELECT source_key, conversation, title FROM recall_documents ORDER BY source_key")
        .all();
    h = await createHarness();
    write(h);
    run(h);
    const reference = await createHarness();
    try {
      write(reference);
      reference.index();
      expect(documents(h)).toHaveLength(32);
      expect(documents(h)).toEqual(documents(reference));
    } finally {
      reference.close();
    }
    expect(presentIndexes(h)).toContain("recall_documents_key");
    expect(h.store.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });

  it("a writer without the key index or its stand-in (a first load killed mid-way) builds the index before writing", async () => {
    h = await createHarness();
    writeSessions(h, 2);
    h.index();
    // What another connection's killed first load leaves: no key index, and no stand-in here.
    h.store.db.exec("DROP INDEX recall_documents_key");
    writeSessions(h, 4);
    h.clock.advance(60_000);
    h.tick();
    expect(presentIndexes(h)).toContain("recall_documents_key");
    const plan = h.store.db
      .prepare("EXPLAIN QUERY PLAN SELECT id FROM recall_documents WHERE source = ? AND source_key = ?")
      .all("claude-code", "u0-0") as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/recall_documents_key/);
  });
});
