import Database from "better-sqlite3";
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb } from "../../test/helpers/dyad.js";
import { createTermStatsJob } from "../app/term-stats-job.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { ConfigSchema } from "../config/schema.js";
import { systemClock } from "../core/clock.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { searchHistory } from "../search/history.js";
import { plannerTuning } from "../search/planner.js";
import { runSearchHistory } from "../tools/search-history.js";
import { SearchHistoryInput } from "../tools/search-history-input.js";
import { computeTermStats } from "../search/term-stats.js";
import { createSources } from "../sources/readers.js";
import type { Source } from "../sources/types.js";
import { READERS_VERSION } from "../sources/version.js";
import { COVERAGE_STALE_MS, readCoverage, readPublishedCoverage } from "../store/coverage-row.js";
import { openHistoryStore, type HistoryStore } from "../store/history-store.js";
import { storedTermRows, writeTermStats } from "../store/term-stats.js";
import { backfill } from "./backfill.js";
import { sourceCoverage } from "./coverage.js";
import { createIndexWorker, type IndexWorker } from "./worker.js";
import { withTermStatisticsPlans } from "../../test/helpers/term-plans.js";
import { rewriteDocumentText } from "../../test/helpers/document-text.js";

const SESSION = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";

async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("index worker", () => {
  let store: HistoryStore | null = null;
  let worker: IndexWorker | null = null;
  let cleanup = () => {};
  afterEach(async () => {
    await worker?.stop();
    store?.close();
    worker = null;
    store = null;
    cleanup();
  });

  const setup = async () => {
    const t = tempDir("recall-worker-");
    cleanup = t.cleanup;
    const home = path.join(t.dir, "home");
    const file = path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`);
    mkdirSync(path.dirname(file), { recursive: true });
    // Ten sessions of four lines: a tick polls at most two files, so indexing takes several ticks.
    for (let f = 0; f < 10; f++) {
      const session = f === 0 ? SESSION : `${SESSION.slice(0, -2)}${String(f).padStart(2, "0")}`;
      let lines =
        f === 0
          ? `${JSON.stringify({ type: "custom-title", customTitle: "osprey-notes", sessionId: SESSION })}\n`
          : "";
      for (let i = 0; i < 4; i++) {
        const n = f * 4 + i;
        lines += claudeLine({ uuid: `u${n}`, session, text: `kestrel note number ${n}`, at: BASE_TIME + n });
      }
      writeFileSync(path.join(path.dirname(file), `${session}.jsonl`), lines);
    }
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const db = store.db;
    const config = ConfigSchema.parse({});
    const logs: string[] = [];
    const make = (
      limits?: { maxRecords: number },
      group?: { records: number; millis: number },
      rawMaxBytesPerSource?: number,
    ) =>
      createIndexWorker({
        db,
        createSources: () => createSources({ HOME: home }, config),
        projectionVersion: PROJECTION_VERSION,
        cadence: { idleMs: 40, backlogMs: 1 },
        log: (line) => logs.push(line),
        ...(limits ? { limits } : {}),
        ...(group ? { group } : {}),
        ...(rawMaxBytesPerSource ? { rawMaxBytesPerSource } : {}),
      });
    /** The rebuilds the workers made so far. */
    const rebuilds = () => logs.filter((l) => l.startsWith("reindex:"));
    return { home, file, db, make, rebuilds, logs };
  };

  it("indexes in bounded cycles, publishes coverage, follows appends and stops cleanly", async () => {
    const { file, db, make } = await setup();
    worker = make({ maxRecords: 5 });
    expect(readCoverage(db, Date.now())).toEqual([]);
    worker.start();
    const ready = await until("coverage ready", () => {
      if (!readPublishedCoverage(db)) return undefined;
      const c = readCoverage(db, Date.now()).find((x) => x.source === "claude-code");
      return c?.state === "ready" ? c : undefined;
    });
    expect(ready.backlog).toBe(0);
    expect(ready.indexedThrough).toBe(BASE_TIME + 39);
    // The background loop's run, from its first records to every source idle, is the last run.
    const firstRun = await until("the last run", () => readPublishedCoverage(db)?.lastRun ?? undefined);
    expect(firstRun).toMatchObject({ records: 40 });
    expect(firstRun.batches).toBeGreaterThanOrEqual(5);
    expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
    // Bounded: ten files, at most two polled per batch, took several cycles.
    expect(worker.figures().cycles).toBeGreaterThanOrEqual(5);

    appendFileSync(
      file,
      claudeLine({ uuid: "late", session: SESSION, text: "a late grebe", at: BASE_TIME + 99 }),
    );
    await until("the appended line", () =>
      searchHistory(db, "fts5", "grebe", {}, 5).hits.length ? true : undefined,
    );
    const appendRun = await until("the append's run", () => {
      const run = readPublishedCoverage(db)?.lastRun;
      return run && run.finishedAt > firstRun.finishedAt ? run : undefined;
    });
    expect(appendRun.records).toBe(1);

    await worker.stop();
    const cycles = worker.figures().cycles;
    expect(worker.figures().running).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(worker.figures().cycles).toBe(cycles);

    // Nobody publishes any more: a later reader sees the coverage as stale.
    const published = readPublishedCoverage(db)!;
    expect(published.writer).toBe("broker");
    const later = readCoverage(db, published.publishedAt + COVERAGE_STALE_MS + 1);
    expect(later.every((c) => c.state === "stale")).toBe(true);
  });

  it("keeps the event loop turning while it catches up", async () => {
    const { db, make } = await setup();
    worker = make({ maxRecords: 2 }, { records: 2, millis: 50 });
    // Something else this process does (an MCP request) gets a turn between groups of batches.
    let turns = 0;
    let done = false;
    const spin = () => {
      turns += 1;
      if (!done) setImmediate(spin);
    };
    setImmediate(spin);
    const result = await worker.catchUp();
    done = true;
    expect(result.records).toBe(40);
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(readPublishedCoverage(db)!.lastRun!.records).toBe(40);
  });

  it("rebuilds the documents of another projection version before its first cycle", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    await worker.stop();
    // An index written by an older projection: a body its policy let through, and its version.
    rewriteDocumentText(db, "d.id = (SELECT min(id) FROM recall_documents)", () => "stale projection leak");
    db.prepare("UPDATE recall_meta SET value = '1' WHERE key = 'projection_version'").run();
    expect(searchHistory(db, "fts5", "leak", {}, 5).hits).toHaveLength(1);
    worker = make();
    worker.start();
    await until("the rebuild", () =>
      (
        db.prepare("SELECT value FROM recall_meta WHERE key = 'projection_version'").get() as {
          value: string;
        }
      ).value === String(PROJECTION_VERSION)
        ? true
        : undefined,
    );
    expect(searchHistory(db, "fts5", "leak", {}, 5).hits).toHaveLength(0);
    expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
  });

  it("re-reads the sources once when an older reader wrote the records, removing what it split", async () => {
    const { file, db, make, rebuilds } = await setup();
    const response = (uuid: string, text: string, at: number) =>
      claudeLine({
        uuid,
        session: SESSION,
        role: "assistant",
        text,
        messageId: "msg_r",
        requestId: "req_r",
        at,
      });
    appendFileSync(
      file,
      response("r0", "heron part zero", BASE_TIME + 100) + response("r1", "heron part one", BASE_TIME + 101),
    );
    const readers = () =>
      (
        db.prepare("SELECT value FROM recall_meta WHERE key = 'readers_version'").get() as
          { value: string } | undefined
      )?.value;
    worker = make();
    await worker.catchUp();
    await worker.stop();
    // A new index notes the version: the next start rebuilds nothing.
    expect(readers()).toBe(String(READERS_VERSION));
    worker = make();
    await worker.catchUp();
    await worker.stop();
    expect(rebuilds()).toEqual([]);
    // What a reader before version 1 left: the response's second line as a record of its own.
    db.prepare(
      `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, text)
       VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), 999, 'r1', ?, 'assistant', 'transcript',
         'heron part one')`,
    ).run(`claude:${SESSION}`, BASE_TIME + 101);
    db.prepare("DELETE FROM recall_meta WHERE key = 'readers_version'").run();
    const split = () =>
      db.prepare("SELECT count(*) AS n FROM recall_records WHERE record_key = 'r1'").get() as { n: number };
    expect(split().n).toBe(1);
    worker = make();
    worker.start();
    await until("the rebuild", () => (readers() === String(READERS_VERSION) ? true : undefined));
    // Only the cursors were reset: documents stayed searchable throughout.
    expect(rebuilds()).toEqual(["reindex: reset 0 documents and 10 cursors"]);
    expect(split().n).toBe(0);
    expect(searchHistory(db, "fts5", "heron", {}, 5).hits).toHaveLength(1);
    expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
  });

  it("an index a plain backfill wrote, or one with no records, is not rebuilt for its readers version", async () => {
    const { home, db, make, rebuilds } = await setup();
    const sources = createSources({ HOME: home }, ConfigSchema.parse({}));
    backfill(db, sources, { projectionVersion: PROJECTION_VERSION, clock: systemClock });
    for (const s of sources) s.close?.();
    worker = make();
    await worker.catchUp();
    expect(rebuilds()).toEqual([]);
  });

  /** Indexed keeping no raw bytes; then the CLI deletes one transcript: only the index has it. */
  const loseOneFile = async ({ file, make }: Awaited<ReturnType<typeof setup>>) => {
    worker = make(undefined, undefined, 1);
    await worker.catchUp();
    await worker.stop();
    rmSync(file);
  };

  it("a readers rebuild keeps what only the index still holds, even when stopped at once", async () => {
    const set = await setup();
    const { db, make, rebuilds } = set;
    await loseOneFile(set);
    db.prepare("DELETE FROM recall_meta WHERE key = 'readers_version'").run();
    const hits = () => searchHistory(db, "fts5", "kestrel", {}, 50).hits.length;
    expect(hits()).toBe(40);
    worker = make(undefined, undefined, 1);
    worker.start();
    await new Promise((r) => setImmediate(r));
    await worker.stop(); // an MCP client went away while the broker rebuilt
    expect(hits()).toBe(40);
    worker = make(undefined, undefined, 1);
    await worker.catchUp();
    expect(rebuilds().length).toBeGreaterThanOrEqual(1);
    expect(hits()).toBe(40);
  });

  it("a projection rebuild rewrites transcript documents in place and keeps those it cannot re-read", async () => {
    const set = await setup();
    const { db, make, rebuilds } = set;
    await loseOneFile(set);
    db.prepare("UPDATE recall_meta SET value = '1' WHERE key = 'projection_version'").run();
    db.prepare("UPDATE recall_documents SET projection_version = 1").run();
    const hits = () => searchHistory(db, "fts5", "kestrel", {}, 50).hits.length;
    const versions = () =>
      db
        .prepare("SELECT projection_version AS v, count(*) AS n FROM recall_documents GROUP BY v ORDER BY v")
        .all();
    worker = make(undefined, undefined, 1);
    const phases = new Set<string>();
    const result = await worker.catchUp((p) => {
      phases.add(p.phase);
      // Searchable throughout: nothing was deleted ahead of the re-read.
      expect(hits()).toBe(40);
    });
    expect(result.records).toBeGreaterThan(0);
    expect(rebuilds()).toEqual(["reindex: reset 0 documents and 10 cursors"]);
    expect(phases.has("reset")).toBe(false);
    expect(hits()).toBe(40);
    // The nine files still there were re-projected; the deleted one's four documents stay as they were.
    expect(versions()).toEqual([
      { v: 1, n: 4 },
      { v: PROJECTION_VERSION, n: 36 },
    ]);
  });

  it("a projection rebuild deletes a chat database's documents first: what was deleted meanwhile goes", async () => {
    const { home, db } = await setup();
    const dyad = createDyadDb(path.dirname(home), "host.db");
    const chat = dyad.chat(dyad.app("garden"), "plans");
    dyad.message(chat, "user", "plant the quince tree");
    const gone = dyad.message(chat, "user", "prune the medlar tree");
    const config = ConfigSchema.parse({ sources: { dyadDatabases: [dyad.file] } });
    const make = () =>
      createIndexWorker({
        db,
        createSources: () => createSources({ HOME: home }, config),
        projectionVersion: PROJECTION_VERSION,
        cadence: { idleMs: 40, backlogMs: 1 },
      });
    const hits = (q: string) => searchHistory(db, "fts5", q, {}, 5).hits.length;
    worker = make();
    await worker.catchUp();
    await worker.stop();
    expect([hits("quince"), hits("medlar")]).toEqual([1, 1]);
    // Deleted in the app while no recall ran; then a new projection: the re-read starts afresh.
    dyad.db.prepare("DELETE FROM messages WHERE id = ?").run(gone);
    db.prepare("UPDATE recall_meta SET value = '1' WHERE key = 'projection_version'").run();
    worker = make();
    await worker.catchUp();
    expect([hits("quince"), hits("medlar")]).toEqual([1, 0]);
    dyad.db.close();
  });

  it("does not index into an index a newer recall built, and says so once", async () => {
    const { file, db, make, rebuilds, logs } = await setup();
    worker = make();
    await worker.catchUp();
    await worker.stop();
    const setReaders = (v: number) =>
      db.prepare("UPDATE recall_meta SET value = ? WHERE key = 'readers_version'").run(String(v));
    setReaders(READERS_VERSION + 1);
    appendFileSync(
      file,
      claudeLine({ uuid: "late", session: SESSION, text: "a late grebe", at: BASE_TIME + 99 }),
    );
    const grebes = () => searchHistory(db, "fts5", "grebe", {}, 5).hits.length;
    worker = make();
    await expect(worker.catchUp()).rejects.toMatchObject({ kind: "SchemaTooNew" });
    await expect(worker.reindex()).rejects.toMatchObject({ kind: "SchemaTooNew" });
    worker.start();
    await until("cycles", () => (worker!.figures().cycles >= 3 ? true : undefined));
    expect(grebes()).toBe(0);
    expect(rebuilds()).toEqual([]); // nor rebuilt back to this version's ways
    expect(logs.filter((l) => l.includes("built by a newer recall"))).toHaveLength(1);
    // Back to this version (say the newer one was a trial): the loop indexes again.
    setReaders(READERS_VERSION);
    await until("the appended line", () => (grebes() === 1 ? true : undefined));
  });

  it("a rebuild that re-reads unchanged records rewrites none of them, nor their FTS rows", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    // Counts the rows UPDATEs touch: a record's row holds its document (an update of a document's
    // text also re-indexes its FTS row).
    db.exec(`
      CREATE TEMP TABLE updated (tbl TEXT);
      CREATE TEMP TRIGGER records_updated AFTER UPDATE ON recall_record_rows BEGIN INSERT INTO updated VALUES ('records'); END;
    `);
    await worker.reindex();
    expect(db.prepare("SELECT tbl, count(*) AS n FROM updated GROUP BY tbl").all()).toEqual([]);
    expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
  });

  it.each(["catchUp", "reindex"] as const)(
    "a transcript cut back past its first 4 KiB while no recall ran keeps the cut lines as its earlier version (%s)",
    async (how) => {
      const { file, db, make } = await setup();
      const pad = "lorem ipsum dolor ".repeat(150); // each line about 2.7 KB: four fill past 4 KiB
      const line = (n: number, word: string) =>
        claudeLine({
          uuid: `big${n}`,
          session: SESSION,
          text: `${word} ${n} ${pad}`,
          at: BASE_TIME + 200 + n,
        });
      writeFileSync(file, [0, 1, 2, 3].map((n) => line(n, n < 2 ? "kept" : "secretword")).join(""));
      worker = make();
      await worker.catchUp();
      await worker.stop();
      const hits = (q: string) => searchHistory(db, "fts5", q, {}, 10).hits.length;
      expect(hits("secretword")).toBe(2);
      // The person removes the last two lines and the session goes on: same first 4 KiB, same size or more.
      writeFileSync(
        file,
        [0, 1].map((n) => line(n, "kept")).join("") + line(7, "replacement") + line(8, "more"),
      );
      worker = make();
      if (how === "catchUp") await worker.catchUp();
      else await worker.reindex();
      // Noticed (counted), the new lines read; what was committed stays (only `recall forget` removes it).
      expect([hits("secretword"), hits("kept"), hits("replacement")]).toEqual([2, 2, 1]);
      expect(sourceCoverage(db, ["claude-code"])[0]!.rewritten).toBe(1);
    },
  );

  it("a transcript cut back is noticed by a rebuild when its retained tail spans many small chunks", async () => {
    const { file, db, make } = await setup();
    const line = (n: number, word: string) =>
      claudeLine({ uuid: `l${n}`, session: SESSION, text: `${word} ${n}`, at: BASE_TIME + 300 + n });
    const head = Array.from({ length: 16 }, (_, n) => line(n, "kept")).join("");
    expect(head.length).toBeGreaterThan(4096);
    writeFileSync(file, head);
    worker = make();
    await worker.catchUp();
    // One short line per poll: the last 4 KiB retained are spread over more chunks than a query reads.
    for (let n = 16; n < 31; n++) {
      appendFileSync(file, line(n, "secretword"));
      await worker.catchUp();
    }
    await worker.stop();
    const hits = (q: string) => searchHistory(db, "fts5", q, {}, 50).hits.length;
    expect(hits("secretword")).toBe(15);
    writeFileSync(file, head + Array.from({ length: 16 }, (_, i) => line(100 + i, "replacement")).join(""));
    worker = make();
    await worker.reindex();
    expect([hits("secretword"), hits("kept"), hits("replacement")]).toEqual([15, 16, 16]);
    expect(sourceCoverage(db, ["claude-code"])[0]!.rewritten).toBe(1);
  });

  it("a rebuild that rewrites documents' text drops term statistics, persisted and cached", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    await worker.stop();
    // An index an older projection wrote: ten documents' bodies lacked the word.
    rewriteDocumentText(db, "d.id <= 10", (body) => body.replace("kestrel ", ""));
    db.prepare("UPDATE recall_meta SET value = '1' WHERE key = 'projection_version'").run();
    // Every plan on this small index uses the term's statistics, as common words do at scale.
    await withTermStatisticsPlans(async () => {
      writeTermStats(db, computeTermStats(db, "kestrel")); // the broker's idle job, then
      expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(30); // and this connection's cache
      const ids = () => db.prepare("SELECT id FROM recall_documents ORDER BY id").pluck().all();
      const before = ids();
      worker = make();
      await worker.catchUp(); // the projection rebuild puts the word back
      expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
      // Rewritten in place: a rebuild's end drops term statistics anyway (ingest.ts textInPlace).
      expect(ids()).toEqual(before);
    });
  });

  it("a response whose later line brings a common word is found through term lists built before it", async () => {
    const { file, db, make } = await setup();
    const part = (uuid: string, text: string) =>
      claudeLine({
        uuid,
        session: SESSION,
        role: "assistant",
        messageId: "msg_late",
        requestId: "req_late",
        text,
      });
    appendFileSync(file, part("a1", "thinking about the osprey"));
    const live = make();
    worker = live;
    await live.catchUp();
    await withTermStatisticsPlans(async () => {
      // This connection's lists for the word are built now, before the response's next line.
      expect(searchHistory(db, "fts5", "kestrel", {}, 50).hits).toHaveLength(40);
      appendFileSync(file, part("a2", "kestrel kestrel kestrel kestrel"));
      await live.catchUp();
      const hits = searchHistory(db, "fts5", "kestrel", {}, 50).hits;
      expect(hits).toHaveLength(41);
      expect(hits[0]!.snippet).toContain("osprey");
      // Its new rowid is never given again: the sequence moved with it.
      const renewed = db.prepare("SELECT max(id) FROM recall_documents").pluck().get() as number;
      const sequence = "SELECT seq FROM sqlite_sequence WHERE name = 'recall_record_rows'";
      expect(db.prepare(sequence).pluck().get()).toBe(renewed);
    });
  });

  it("a search reads one snapshot: a document another connection rewrites mid-search is not lost", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    await worker.stop();
    const other = new Database(db.name);
    let moved = 0;
    plannerTuning.observe = (result) => {
      if (moved++ > 0) return; // between ranking and reading the rows: another process renews the best
      rewriteDocumentText(other, `d.id = ${result.rows[0]!.id}`, (body) => `${body} again`, {
        renumber: true,
      });
    };
    try {
      const input = SearchHistoryInput.parse({ query: "kestrel", limit: 50 });
      expect(runSearchHistory(db, "fts5", input).hits).toHaveLength(40);
      expect(moved).toBeGreaterThan(0);
      expect(runSearchHistory(db, "fts5", input).hits).toHaveLength(40);
    } finally {
      delete plannerTuning.observe;
      other.close();
    }
  });

  it("a rebuild brings a document's kind and agent to what the reader says now", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    await worker.stop();
    const first = () =>
      db.prepare("SELECT kind, agent FROM recall_documents ORDER BY id LIMIT 1").get() as {
        kind: string;
        agent: string;
      };
    const now = first();
    db.prepare(
      "UPDATE recall_documents SET kind = 'older-kind', agent = 'older-agent' WHERE id = (SELECT min(id) FROM recall_documents)",
    ).run();
    db.prepare("DELETE FROM recall_meta WHERE key = 'readers_version'").run();
    worker = make();
    await worker.catchUp();
    expect(first()).toEqual(now);
  });

  it("the broker's idle job builds the term statistics a reindex dropped again", async () => {
    const { db, make } = await setup();
    worker = make();
    await worker.catchUp();
    const job = createTermStatsJob(db);
    while (job.step());
    const before = storedTermRows(db).size;
    expect(before).toBeGreaterThan(0);
    await worker.reindex(); // the same rows: the index did not grow
    expect(storedTermRows(db).size).toBe(0);
    while (job.step());
    expect(storedTermRows(db).size).toBe(before);
  });

  it("a lock held by another writer at start is counted, and indexing goes on once it is released", async () => {
    const { db, make } = await setup();
    const other = new Database(db.name);
    other.exec("BEGIN IMMEDIATE");
    db.pragma("busy_timeout = 100");
    try {
      worker = make();
      worker.start();
      await until("the failed check", () => (worker!.figures().errors > 0 ? true : undefined));
    } finally {
      other.exec("COMMIT");
      other.close();
    }
    await until("indexing", () =>
      (db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n === 40
        ? true
        : undefined,
    );
  });

  it("a source that fails every batch neither stops the others nor is recreated every cycle", async () => {
    const { home, db } = await setup();
    let created = 0;
    const config = ConfigSchema.parse({});
    worker = createIndexWorker({
      db,
      createSources: () => {
        created += 1;
        const broken: Source = {
          name: "broken",
          agent: "broken",
          nextBatch: () => {
            throw Object.assign(new Error("damaged"), { code: "SQLITE_CORRUPT" });
          },
        };
        return [broken, ...createSources({ HOME: home }, config)];
      },
      projectionVersion: PROJECTION_VERSION,
      cadence: { idleMs: 5, backlogMs: 1 },
    });
    worker.start();
    await until("every other record", () =>
      (db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n === 40
        ? true
        : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(worker.figures().errors).toBeGreaterThan(10);
    // The first set, and the broken source once more: then it waits RESTART_FAILED_SOURCE_MS.
    expect(created).toBe(2);
  });

  it("reindex resets cursors and rewrites documents, keeping aliases and retained records; sources untouched", async () => {
    const { file, db, make } = await setup();
    worker = make();
    await worker.catchUp();
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const before = {
      aliases: count("SELECT count(*) AS n FROM recall_session_aliases"),
      records: count("SELECT count(*) AS n FROM recall_records"),
      documents: count("SELECT count(*) AS n FROM recall_documents"),
    };
    expect(before.aliases).toBeGreaterThan(0);
    const bytes = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const phases = new Set<string>();
    const result = await worker.reindex((p) => phases.add(p.phase));
    // Transcript documents are rewritten as they are re-read, not deleted first.
    expect(result.reset.documents).toBe(0);
    expect(result.reset.checkpoints).toBeGreaterThan(0);
    expect(phases).toEqual(new Set(["indexing"]));
    expect({
      aliases: count("SELECT count(*) AS n FROM recall_session_aliases"),
      records: count("SELECT count(*) AS n FROM recall_records"),
      documents: count("SELECT count(*) AS n FROM recall_documents"),
    }).toEqual(before);
    expect(
      searchHistory(db, "fts5", "kestrel", { sessions: ["osprey-notes", SESSION] }, 50).hits,
    ).toHaveLength(4);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(readPublishedCoverage(db)!.rebuilding).toBe(false);
  });
});
