import { replaceFts } from "../indexer/fts-queue.js";
import { searchHistory } from "../search/history.js";
import Database from "better-sqlite3";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { chooseEngine, probeFts5 } from "./fts-probe.js";
import { HISTORY_FILE, HISTORY_PAGE_SIZE, openHistoryStore, registerFunctions } from "./history-store.js";
import { documentIdOfHit, recordIdOfHit } from "./hit-ids.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open.js";
import { HISTORY_MIGRATIONS } from "./schema/history.js";

const LATEST = HISTORY_MIGRATIONS.at(-1)!.version;

describe("FTS5 probe and engine choice", () => {
  it("finds FTS5 in the bundled SQLite build", () => {
    expect(probeFts5()).toBe(true);
  });

  it("forces plain when asked, and falls back to plain when the probe fails", () => {
    expect(chooseEngine("plain")).toBe("plain");
    expect(chooseEngine(undefined, () => false)).toBe("plain");
    expect(chooseEngine(undefined, () => true)).toBe("fts5");
    expect(() => chooseEngine("fts5", () => false)).toThrow(/FTS5/);
  });
});

describe("history store", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("keeps its folder and database files to their owner, whatever the umask, and narrows older ones", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const home = path.join(t.dir, "recall-home");
    const mode = (file: string) => statSync(file).mode & 0o777;
    const umask = process.umask(0o022);
    try {
      const store = await openHistoryStore({ home, projectionVersion: 1 });
      store.db.exec("CREATE TABLE scratch (x); INSERT INTO scratch VALUES (1)");
      expect(mode(home)).toBe(0o700);
      for (const suffix of ["", "-wal", "-shm"])
        expect(mode(path.join(home, `${HISTORY_FILE}${suffix}`))).toBe(0o600);
      store.close();
      // An index an earlier release left readable by all.
      chmodSync(path.join(home, HISTORY_FILE), 0o644);
      (await openHistoryStore({ home, projectionVersion: 1 })).close();
      expect(mode(path.join(home, HISTORY_FILE))).toBe(0o600);
    } finally {
      process.umask(umask);
    }
  });

  /** A new index in a temporary RECALL_HOME, migrated only up to `version` (an older release's). */
  const indexAtVersion = async (version: number, engine: "fts5" | "plain") => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, HISTORY_FILE);
    const old = openDatabase(file);
    registerFunctions(old);
    await migrate({
      db: old,
      file,
      migrations: HISTORY_MIGRATIONS.filter((m) => m.version <= version),
      context: { engine, projectionVersion: 1 },
      backupDir: path.join(t.dir, "backups"),
    });
    return { dir: t.dir, old };
  };

  /** Since schema 13 a hit id the row's columns do not give is stored as own_hit_id (store/hit-ids.ts). */
  const hitColumn = (db: Database.Database, table: string) =>
    db.prepare(`SELECT name FROM pragma_table_info('${table}') WHERE name = 'own_hit_id'`).get()
      ? "own_hit_id"
      : "hit_id";
  const insert = (db: Database.Database, id: string, body: string) =>
    db
      .prepare(
        `INSERT INTO recall_documents (source, source_key, ${hitColumn(db, "recall_documents")}, kind, agent, at, role,
           title, body, projection_version)
         VALUES ('test', ?, ?, 'transcript', 'claude', 1, 'user', '', ?, 1)`,
      )
      .run(id, `transcript:test:${id}`, body);
  /** A row of an older schema as schema 13 holds it: these ids have no conversation, so they stay stored. */
  const withOwnHit = (row: object) => ({
    ...row,
    own_hit_id: (row as { hit_id: string | null }).hit_id ?? "",
  });

  /**
   * The documents as schema 16's view reads them, less the columns it adds (the conversation's
   * ref, the record's text): a document is its record's row, and one without a conversation
   * (these tests' older rows) has one named by its source and key.
   */
  const documentsNow = (db: Database.Database) =>
    (db.prepare("SELECT * FROM recall_documents ORDER BY id").all() as Record<string, unknown>[]).map(
      ({ conversation_ref: _ref, record_text: _text, ...row }) => row,
    );
  const inConversation = (row: object) => {
    const r = row as { conversation: string | null; source: string; source_key: string };
    return { ...row, conversation: r.conversation ?? `${r.source}:${r.source_key}` };
  };

  /** The rows the engine's text index finds `word` in. */
  const rowsWith = (db: Database.Database, engine: "fts5" | "plain", word: string) =>
    (engine === "fts5"
      ? db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid").pluck().all(word)
      : db.prepare("SELECT id FROM recall_plain WHERE folded LIKE ? ORDER BY id").pluck().all(`%${word}%`)
    ).map(Number);

  /** Writers of a schema-12 index, which stores every hit id: (conversation, ordinal, key, kind, hit id, text) and (key, hit id, kind, body, conversation). */
  const v12Writers = (old: Database.Database) => ({
    record: old.prepare(
      `INSERT INTO recall_records (conversation, ordinal, record_key, at, role, kind, hit_id, text)
       VALUES (?, ?, ?, 1, 'user', ?, ?, ?)`,
    ),
    doc: old.prepare(
      `INSERT INTO recall_documents (source, source_key, hit_id, kind, agent, at, role, body, conversation,
         projection_version) VALUES ('test', ?, ?, ?, 'claude', 1, 'user', ?, ?, 1)`,
    ),
  });

  it("v10 keeps one copy of the text: bodies its record gives become '', the FTS5 index finds the same rows", async () => {
    const { dir, old } = await indexAtVersion(9, "fts5");
    const record = old.prepare(
      `INSERT INTO recall_records (conversation, ordinal, record_key, at, role, kind, hit_id, text)
       VALUES ('claude:s1', ?, ?, 1, 'user', 'transcript', ?, ?)`,
    );
    const doc = old.prepare(
      `INSERT INTO recall_documents (source, source_key, hit_id, kind, agent, at, role, title, body, conversation,
         projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', 1, 'user', 'Heron notes', ?, 'claude:s1', 1)`,
    );
    // The same text; a tool result whose read-only line the searched text lacks; a text the
    // searched one does not follow from (it keeps its own copy); a document with no record.
    const rows = [
      ["a", "heron decision", "heron decision"],
      ["b", "[result: Bash ok]\negret output", "egret output"],
      ["c", "osprey read view", "osprey searched differently"],
    ];
    rows.forEach(([key, read, search], i) => {
      record.run(i, key, `transcript:test:${key}`, read);
      doc.run(key, `transcript:test:${key}`, search);
    });
    insert(old, "d", "kestrel alone");
    const match = (db: Database.Database, q: string) =>
      db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid").pluck().all(q);
    const queries = ['"heron"', '"egret"', '"osprey" AND "differently"', '"kestrel"', '"result"', '"notes"'];
    const before = queries.map((q) => match(old, q));
    old.close();

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    const db = store.db;
    expect(store.migration).toMatchObject({ from: 9, to: LATEST });
    expect(
      db
        .prepare("SELECT source_key, body, record IS NOT NULL AS linked FROM recall_documents ORDER BY id")
        .all(),
    ).toEqual([
      { source_key: "a", body: "", linked: 1 },
      { source_key: "b", body: "", linked: 1 },
      { source_key: "c", body: "osprey searched differently", linked: 1 },
      { source_key: "d", body: "kestrel alone", linked: 0 },
    ]);
    expect(queries.map((q) => match(db, q))).toEqual(before);
    // Searches read the text back from the record; deleting a document takes its FTS row.
    expect(searchHistory(db, "fts5", "egret", {}, 5).hits.map((h) => h.snippet)).toEqual(["egret output"]);
    db.prepare("DELETE FROM recall_documents WHERE source_key = 'b'").run();
    expect(match(db, '"egret"')).toEqual([]);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    store.close();
  });

  it("creates an fts5 index, records the engine and keeps the FTS in sync with documents", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = await openHistoryStore({ home: t.dir, projectionVersion: 1 });
    expect(store.engine).toBe("fts5");
    insert(store.db, "a", "Crème brûlée decision");
    const match = (q: string) =>
      store.db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH ?").all(q).length;
    expect(match('"creme"')).toBe(1);
    store.db.prepare("DELETE FROM recall_documents").run();
    expect(match('"creme"')).toBe(0);
    store.close();
  });

  it("forced plain engine keeps folded text and no FTS table", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = await openHistoryStore({ home: t.dir, projectionVersion: 1, engine: "plain" });
    expect(store.engine).toBe("plain");
    insert(store.db, "a", "Crème BRÛLÉE");
    expect(store.db.prepare("SELECT folded FROM recall_plain").get()).toEqual({ folded: "\ncreme brulee" });
    expect(store.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'recall_fts'").get()).toBeUndefined();
    store.close();
  });

  it("an existing index keeps its engine whatever is forced later", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    (await openHistoryStore({ home: t.dir, projectionVersion: 1, engine: "plain" })).close();
    const again = await openHistoryStore({ home: t.dir, projectionVersion: 1 });
    expect(again.engine).toBe("plain");
    again.close();
  });

  it("a reader opening a missing index gets NotFound, not an empty database", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    await expect(
      openHistoryStore({ home: t.dir, projectionVersion: 1, readonly: true }),
    ).rejects.toMatchObject({
      kind: "NotFound",
    });
    // and nothing was created
    expect(() => new Database(path.join(t.dir, HISTORY_FILE), { fileMustExist: true })).toThrow();
  });

  it("uses WAL and enforces foreign keys", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = await openHistoryStore({ home: t.dir, projectionVersion: 1 });
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.db.pragma("foreign_keys", { simple: true })).toBe(1);
    store.close();
  });

  it("creates an index with its own page size; an existing one keeps its size", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = await openHistoryStore({ home: t.dir, projectionVersion: 1 });
    expect(store.db.pragma("page_size", { simple: true })).toBe(HISTORY_PAGE_SIZE);
    store.close();

    const older = path.join(t.dir, "older");
    mkdirSync(older);
    const made = new Database(path.join(older, HISTORY_FILE));
    made.pragma("journal_mode = WAL");
    made.exec("CREATE TABLE host_note (x)");
    made.close();
    const reopened = await openHistoryStore({ home: older, projectionVersion: 1 });
    expect(reopened.db.pragma("page_size", { simple: true })).toBe(4096);
    reopened.close();
  });

  it.each(["fts5", "plain"] as const)(
    "v5 rebuilds an existing %s index's documents around a named key index, keeping ids, text search and links",
    async (engine) => {
      const { dir, old } = await indexAtVersion(4, engine);
      insert(old, "a", "heron decision");
      insert(old, "b", "egret follow-up");
      old.prepare("DELETE FROM recall_documents WHERE source_key = 'a'").run();
      insert(old, "c", "heron again");
      old.prepare("INSERT INTO recall_document_participants (identity, document) VALUES ('peer-1', 3)").run();
      const before = old.prepare("SELECT * FROM recall_documents ORDER BY id").all();
      old.close();

      const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
      const db = store.db;
      expect(store.migration).toMatchObject({ from: 4, to: LATEST });
      expect(store.migration?.backup).toBeTruthy();
      // Schema 10 names each document's record (none here: these documents have none).
      expect(documentsNow(db)).toEqual(
        (before as object[]).map((r) => inConversation(withOwnHit({ ...r, record: null }))),
      );
      const indexes = db
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recall_record_rows'",
        )
        .all() as { name: string; sql: string | null }[];
      expect(indexes.find((i) => i.name.startsWith("sqlite_autoindex"))).toBeUndefined();
      // Schema 16: a document is its record's row; its key is the row's (conversation, key).
      expect(indexes.find((i) => i.name === "recall_documents_key")?.sql).toBe(
        "CREATE INDEX recall_documents_key ON recall_record_rows (record_key) WHERE projection_version IS NOT NULL",
      );
      expect(indexes.map((i) => i.name)).toContain("recall_documents_job");
      expect(db.prepare("SELECT document FROM recall_document_participants").pluck().all()).toEqual([3]);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      // The triggers came back: new, changed and deleted documents reach the text index (a
      // changed text's FTS5 row is replaced by its writer since schema 10: fts-queue.ts).
      insert(db, "d", "heron late note");
      db.prepare("UPDATE recall_documents SET body = 'egret revised' WHERE source_key = 'b'").run();
      if (engine === "fts5") replaceFts(db, 2, { title: "", body: "egret revised" });
      const found = (word: string) => rowsWith(db, engine, word);
      expect(found("heron")).toEqual([3, 4]);
      expect(found("revised")).toEqual([2]);
      db.prepare("DELETE FROM recall_documents WHERE source_key = 'c'").run();
      expect(found("heron")).toEqual([4]);
      expect(db.prepare("SELECT count(*) FROM recall_document_participants").pluck().get()).toBe(0);
      expect(() => insert(db, "b", "a second b")).toThrow(/UNIQUE/);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      store.close();
    },
  );
  it("v6 rebuilds an existing index's records around a named ordinal key, keeping rows, ids and both keys", async () => {
    const { dir, old } = await indexAtVersion(5, "fts5");
    const record = old.prepare(
      `INSERT INTO recall_records (conversation, ordinal, record_key, at, role, kind, text) VALUES (?, ?, ?, ?, 'user', 'transcript', ?)`,
    );
    for (let i = 0; i < 5; i++) record.run("claude:s1", i, `k${i}`, 100 + i, `turn ${i}`);
    record.run("codex:t1", 0, "k0", 50, "other conversation");
    old.prepare("DELETE FROM recall_records WHERE record_key = 'k2'").run();
    const before = old.prepare("SELECT * FROM recall_records ORDER BY id").all();
    old.close();

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    const db = store.db;
    expect(store.migration).toMatchObject({ from: 5, to: LATEST });
    // Schema 9 adds each record's file version (0: read before any rewrite). Schema 16 numbers
    // records without a document anew, in their order, above every document's id.
    const withoutId = (rows: object[]) => rows.map(({ id: _id, ...row }: { id?: unknown }) => row);
    expect(withoutId(db.prepare("SELECT * FROM recall_records ORDER BY id").all() as object[])).toEqual(
      withoutId((before as object[]).map((r) => withOwnHit({ ...r, epoch: 0 }))),
    );
    // Schema 14 keeps the rows under an integer conversation ref, both keys as named unique indexes.
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recall_record_rows'")
      .all() as { name: string; sql: string | null }[];
    expect(indexes.find((i) => i.name === "recall_records_ordinal")?.sql).toBe(
      "CREATE UNIQUE INDEX recall_records_ordinal ON recall_record_rows (conversation_ref, ordinal)",
    );
    expect(indexes.map((i) => i.name)).toEqual(
      expect.arrayContaining(["recall_records_key", "recall_records_ordinal", "recall_records_time"]),
    );
    const insert = db.prepare(
      `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, text)
       VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), ?, ?, ?, 'user', 'transcript', ?)`,
    );
    expect(() => insert.run("claude:s1", 1, "k9", 1, "same ordinal")).toThrow(/UNIQUE/);
    expect(() => insert.run("claude:s1", 9, "k1", 1, "same key")).toThrow(/UNIQUE/);
    insert.run("claude:s1", 5, "k5", 105, "a new turn");
    expect(db.prepare("SELECT conversation, text FROM recall_records WHERE record_key = 'k5'").get()).toEqual(
      {
        conversation: "claude:s1",
        text: "a new turn",
      },
    );
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    store.close();
  });

  it("v7 drops term statistics built with the former search_history weights", async () => {
    const { dir, old } = await indexAtVersion(6, "fts5");
    old
      .prepare(
        `INSERT INTO recall_term_stats (term, df, through, built_rows, idf, avgdl, complete, ids, impacts)
         VALUES ('session', 1, 1, 1, 1, 1, 1, x'', x'')`,
      )
      .run();
    old.close();
    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    expect(store.migration).toMatchObject({ from: 6, to: LATEST });
    expect(store.db.prepare("SELECT count(*) AS n FROM recall_term_lists").get()).toEqual({ n: 0 });
    store.close();
  });

  it("v12 drops the 64-bit term lists for an empty table of 32-bit ones in rowid order", async () => {
    const { dir, old } = await indexAtVersion(11, "fts5");
    const f64 = (values: number[]) => Buffer.from(new Float64Array(values).buffer);
    old
      .prepare(
        `INSERT INTO recall_term_stats (term, df, through, built_rows, idf, avgdl, complete, ids, impacts)
         VALUES ('session', 2, 9, 9, 1, 1, 1, ?, ?)`,
      )
      .run(f64([7, 3]), f64([1.5, 0.5]));
    old.close();
    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    expect(store.migration).toMatchObject({ from: 11, to: LATEST });
    const tables = store.db
      .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'recall_term_%' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(["recall_term_lists"]);
    expect(store.db.prepare("SELECT count(*) AS n FROM recall_term_lists").get()).toEqual({ n: 0 });
    store.close();
  });

  it("v13 derives hit ids instead of storing them: the same ids read back and found, ids never reused", async () => {
    const { dir, old } = await indexAtVersion(12, "fts5");
    const { record, doc } = v12Writers(old);
    // A transcript hit, a record with no hit, an id of the bridge's own, a transcript key that
    // carries its session (Codex's), an app chat's, and a document without a conversation; the
    // newest document is then deleted.
    record.run("claude:s1", 0, "k0", "transcript", "transcript:claude:s1:k0", "heron decision");
    record.run("claude:s1", 1, "k1", "transcript", null, "");
    record.run("bridge:t1", 0, "m1", "message", "message:m1", "egret message");
    record.run("codex:t9", 0, "t9:42", "transcript", "transcript:codex:t9:42", "plover turn");
    doc.run("k0", "transcript:claude:s1:k0", "transcript", "heron decision", "claude:s1");
    doc.run("m1", "message:m1", "message", "egret message", "bridge:t1");
    doc.run("t9:42", "transcript:codex:t9:42", "transcript", "plover turn", "codex:t9");
    doc.run("5", "chat:1:5", "chat", "osprey chat", "chat:1");
    doc.run("lone", "transcript:test:lone", "transcript", "kestrel alone", null);
    doc.run("gone", "transcript:claude:s1:gone", "transcript", "heron gone", "claude:s1");
    old.prepare("DELETE FROM recall_documents WHERE source_key = 'gone'").run();
    const hits = (db: Database.Database, table: string) =>
      db.prepare(`SELECT id, hit_id FROM ${table} ORDER BY id`).all();
    const before = { documents: hits(old, "recall_documents"), records: hits(old, "recall_records") };
    old.close();

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    const db = store.db;
    expect(store.migration).toMatchObject({ from: 12, to: LATEST });
    // Schema 16 keeps documents' ids; a record takes its document's, the others are numbered anew.
    const recordId = (key: string) =>
      db.prepare("SELECT id FROM recall_records WHERE record_key = ?").pluck().get(key) as number;
    expect(hits(db, "recall_documents")).toEqual(before.documents);
    const hitIds = (rows: unknown[]) => (rows as { hit_id: string | null }[]).map((r) => r.hit_id).sort();
    expect(hitIds(hits(db, "recall_records"))).toEqual(hitIds(before.records));
    expect([recordId("k0"), recordId("m1"), recordId("t9:42"), recordId("k1")]).toEqual([1, 2, 3, 7]);
    expect(db.prepare("SELECT own_hit_id FROM recall_documents ORDER BY id").pluck().all()).toEqual([
      null,
      "message:m1",
      null,
      null,
      "transcript:test:lone",
    ]);
    expect(db.prepare("SELECT own_hit_id FROM recall_records ORDER BY id").pluck().all()).toEqual([
      null,
      "message:m1",
      null,
      "",
    ]);
    for (const { id, hit_id } of before.documents as { id: number; hit_id: string }[])
      expect(documentIdOfHit(db, hit_id)).toBe(id);
    expect(documentIdOfHit(db, "transcript:claude:s1:k1")).toBeUndefined();
    expect(documentIdOfHit(db, "chat:1:5:extra")).toBeUndefined();
    expect(recordIdOfHit(db, "claude:s1", "transcript:claude:s1:k0")).toBe(1);
    expect(recordIdOfHit(db, "bridge:t1", "message:m1")).toBe(2);
    expect(recordIdOfHit(db, "codex:t9", "transcript:codex:t9:42")).toBe(3);
    expect(documentIdOfHit(db, "transcript:codex:t9:t9:42")).toBeUndefined();
    expect(recordIdOfHit(db, "claude:s1", "transcript:claude:s1:k1")).toBeUndefined();
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recall_record_rows'")
      .all() as { name: string; sql: string }[];
    expect(indexes.map((i) => i.name)).not.toContain("recall_documents_hit");
    expect(indexes.map((i) => i.name)).toEqual(
      expect.arrayContaining(["recall_records_key", "recall_documents_own_hit"]),
    );
    // The sequence survived the rebuilds: the deleted document's id (6) is not given again, nor
    // the one the record without a document took (7).
    db.prepare(doc.source.replace("hit_id", "own_hit_id")).run(
      "k9",
      null,
      "transcript",
      "heron new",
      "claude:s1",
    );
    expect(db.prepare("SELECT id FROM recall_documents WHERE source_key = 'k9'").pluck().get()).toBe(8);
    expect(db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH 'egret'").pluck().all()).toEqual([
      2,
    ]);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    store.close();
  });

  it("v14 keys records by an integer conversation ref that is never reused; the view reads them as before", async () => {
    const { dir, old } = await indexAtVersion(13, "fts5");
    old
      .prepare(
        "INSERT INTO recall_conversations (id, source, agent, kind) VALUES (?, 'claude-code', 'claude', 'transcript')",
      )
      .run("claude:s1");
    const record = old.prepare(
      `INSERT INTO recall_records (conversation, ordinal, record_key, at, role, kind, text)
       VALUES (?, ?, ?, ?, 'user', 'transcript', ?)`,
    );
    for (let i = 0; i < 3; i++) record.run("claude:s1", i, `k${i}`, 100 + i, `turn ${i}`);
    const before = old.prepare("SELECT * FROM recall_records ORDER BY id").all();
    old.close();

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    const db = store.db;
    expect(db.prepare("SELECT * FROM recall_records ORDER BY id").all()).toEqual(before);
    expect(db.prepare("SELECT type FROM sqlite_master WHERE name = 'recall_records'").pluck().get()).toBe(
      "view",
    );
    const ref = (id: string) =>
      db.prepare("SELECT ref FROM recall_conversations WHERE id = ?").pluck().get(id) as number | undefined;
    const first = ref("claude:s1")!;
    // A conversation gone with its rows left behind (no writer does so): a later one never takes its ref.
    db.prepare("DELETE FROM recall_conversations WHERE id = 'claude:s1'").run();
    db.prepare(
      "INSERT INTO recall_conversations (id, source, agent, kind) VALUES ('claude:s2', 'x', 'claude', 'transcript')",
    ).run();
    expect(ref("claude:s2")).toBeGreaterThan(first);
    expect(db.prepare("SELECT count(*) FROM recall_records").pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM recall_record_rows").pluck().get()).toBe(3);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    store.close();
  });

  it("v15 keeps term lists, now in a rowid table", async () => {
    const { dir, old } = await indexAtVersion(14, "fts5");
    const f32 = (values: number[]) => Buffer.from(new Float32Array(values).buffer);
    const u32 = (values: number[]) => Buffer.from(new Uint32Array(values).buffer);
    old
      .prepare(
        `INSERT INTO recall_term_lists (term, df, through, built_rows, idf, avgdl, complete, ids, impacts)
         VALUES ('session', 2, 9, 9, 1.5, 2.5, 1, ?, ?)`,
      )
      .run(u32([3, 7]), f32([1.5, 0.5]));
    const before = old.prepare("SELECT * FROM recall_term_lists").all();
    old.close();
    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    expect(store.migration).toMatchObject({ from: 14, to: LATEST });
    expect(store.db.prepare("SELECT * FROM recall_term_lists").all()).toEqual(before);
    expect(store.db.prepare("SELECT rowid FROM recall_term_lists").pluck().all()).toEqual([1]);
    store.close();
  });

  it.each(["fts5", "plain"] as const)(
    "v16 folds each %s document into its record's row: the views read as before, ids are never reused",
    async (engine) => {
      const { dir, old } = await indexAtVersion(15, engine);
      const conversation = old.prepare(
        "INSERT INTO recall_conversations (id, source, agent, kind, project, session) VALUES (?, ?, ?, ?, ?, ?)",
      );
      conversation.run("claude:s1", "claude-code", "claude", "transcript", "/p/a", "s1");
      conversation.run("claude:s2", "claude-code", "claude", "transcript", "/p/a", "s2");
      conversation.run("bridge:t1", "bridge", "bridge", "message", "/p/a", "t1");
      const record = old.prepare(
        `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text)
         VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), ?, ?, ?, 'user', ?, ?, ?)`,
      );
      const doc = old.prepare(
        `INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, project, session, conversation,
           role, title, body, projection_version, fts_deferred, record)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'user', '', ?, 1, 0, ?)`,
      );
      const rec = (...args: unknown[]) => Number(record.run(...args).lastInsertRowid);
      // A transcript's record and document; a record without one (not searched); a line copied into
      // a resumed session (its document stays the first conversation's); a bridge message with its
      // sender's project and a participant; a document deleted before the migration. Bodies are
      // stored whole: a body '' stands for the record's text, which this insert does not index.
      const k0 = rec("claude:s1", 0, "k0", 10, "transcript", null, "heron decision");
      rec("claude:s1", 1, "k1", 11, "transcript", "", "[tool output]");
      const gone = rec("claude:s1", 2, "k2", 12, "transcript", null, "egret gone");
      rec("claude:s2", 0, "k0", 20, "transcript", null, "heron decision");
      const m1 = rec("bridge:t1", 0, "m1", 30, "message", "message:m1", "osprey message");
      const transcriptDoc = (key: string, at: number, text: string, id: number) =>
        doc.run("claude-code", key, null, "transcript", "claude", at, "/p/a", "s1", "claude:s1", text, id);
      transcriptDoc("k0", 10, "heron decision", k0);
      doc.run(
        "bridge",
        "m1",
        "message:m1",
        "message",
        "bridge",
        30,
        "/p/b",
        "t1",
        "bridge:t1",
        "osprey message",
        m1,
      );
      transcriptDoc("k2", 12, "egret", gone); // the highest id, deleted below: never given again
      old.prepare("INSERT INTO recall_document_participants (identity, document) VALUES ('peer-1', 2)").run();
      old.prepare("DELETE FROM recall_documents WHERE source_key = 'k2'").run();
      old.prepare("DELETE FROM recall_record_rows WHERE id = ?").run(gone);
      const documents = (db: Database.Database) =>
        db
          .prepare(
            `SELECT id, source, source_key, hit_id, kind, agent, at, project, session, conversation, title, body
             FROM recall_documents ORDER BY id`,
          )
          .all();
      const records = (db: Database.Database) =>
        db
          .prepare(
            "SELECT conversation, ordinal, record_key, at, kind, hit_id, text FROM recall_records ORDER BY conversation, ordinal",
          )
          .all();
      const before = { documents: documents(old), records: records(old) };
      old.close();

      const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
      const db = store.db;
      expect(store.migration).toMatchObject({ from: 15, to: LATEST });
      expect(documents(db)).toEqual(before.documents);
      expect(records(db)).toEqual(before.records);
      // A record keeps its document's id; the others are numbered above every id given before.
      const id = (conversation: string, key: string) =>
        db
          .prepare("SELECT id FROM recall_records WHERE conversation = ? AND record_key = ?")
          .pluck()
          .get(conversation, key);
      expect([id("claude:s1", "k0"), id("bridge:t1", "m1")]).toEqual([1, 2]);
      expect([id("claude:s1", "k1"), id("claude:s2", "k0")]).toEqual([4, 5]);
      expect(db.prepare("SELECT document FROM recall_document_participants").pluck().all()).toEqual([2]);
      const found = (word: string) => rowsWith(db, engine, word);
      expect(found("osprey")).toEqual([2]);
      // Written through the view: a new document takes an id above them all, a deleted one leaves
      // its record, and its participants and text index rows go.
      db.prepare(
        `INSERT INTO recall_documents (source, source_key, kind, agent, at, conversation, role, title, body,
           projection_version) VALUES ('claude-code', 'k3', 'transcript', 'claude', 13, 'claude:s1', 'user', '', ?, 1)`,
      ).run("kestrel late");
      expect(db.prepare("SELECT id FROM recall_documents WHERE source_key = 'k3'").pluck().get()).toBe(6);
      expect(found("kestrel")).toEqual([6]);
      db.prepare("DELETE FROM recall_documents WHERE source_key = 'm1'").run();
      expect(found("osprey")).toEqual([]);
      expect(id("bridge:t1", "m1")).toBe(2);
      expect(db.prepare("SELECT count(*) FROM recall_document_participants").pluck().get()).toBe(0);
      expect(db.pragma("foreign_key_check")).toEqual([]);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      store.close();
    },
  );

  it("gives back the pages a rebuilding migration freed, and a new index's open leaves its file as it is", async () => {
    const { dir, old } = await indexAtVersion(12, "fts5");
    const { record, doc } = v12Writers(old);
    old.transaction(() => {
      for (let i = 0; i < 3_000; i++) {
        const key = `key-${i}`;
        const hit = `transcript:claude:s1:${key}`;
        record.run("claude:s1", i, key, "transcript", hit, `heron note ${i} `.repeat(8));
        doc.run(key, hit, "transcript", `heron note ${i}`, "claude:s1");
      }
    })();
    old.pragma("wal_checkpoint(TRUNCATE)");
    old.close();
    const file = path.join(dir, HISTORY_FILE);
    const before = statSync(file).size;

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    expect(store.migration).toMatchObject({ from: 12, to: LATEST });
    const pages = (db: Database.Database) => ({
      free: db.pragma("freelist_count", { simple: true }) as number,
      all: db.pragma("page_count", { simple: true }) as number,
    });
    expect(pages(store.db).free).toBe(0);
    expect(statSync(file).size).toBeLessThan(before);
    expect(statSync(`${file}-wal`).size).toBe(0);
    expect(documentIdOfHit(store.db, "transcript:claude:s1:key-2999")).toBeGreaterThan(0);
    // Free pages a later delete leaves are for later writes: an open without a migration keeps them.
    store.db.prepare("DELETE FROM recall_record_rows").run();
    const left = pages(store.db);
    store.close();
    expect(left.free).toBeGreaterThan(left.all / 10);
    const again = await openHistoryStore({ home: dir, projectionVersion: 1 });
    expect(pages(again.db).free).toBe(left.free);
    again.close();
  });

  it("v8 keeps documents, ids, links and text search, and a new document never takes a deleted one's id", async () => {
    const { dir, old } = await indexAtVersion(7, "fts5");
    for (const [key, body] of [
      ["a", "heron one"],
      ["b", "egret two"],
      ["c", "heron three"],
    ])
      insert(old, key!, body!);
    old.prepare("INSERT INTO recall_document_participants (identity, document) VALUES ('peer-1', 3)").run();
    const before = old.prepare("SELECT * FROM recall_documents ORDER BY id").all();
    old.close();

    const store = await openHistoryStore({ home: dir, projectionVersion: 1 });
    const db = store.db;
    expect(store.migration).toMatchObject({ from: 7, to: LATEST });
    expect(documentsNow(db)).toEqual(
      (before as object[]).map((r) => inConversation(withOwnHit({ ...r, record: null }))),
    );
    // Schema 16: the documents' indexes are their rows'.
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recall_record_rows'")
      .pluck()
      .all();
    expect(indexes).toEqual(
      expect.arrayContaining([
        "recall_documents_key",
        "recall_documents_at",
        "recall_documents_project",
        "recall_documents_chat",
        "recall_documents_job",
      ]),
    );
    expect(db.prepare("SELECT document FROM recall_document_participants").pluck().all()).toEqual([3]);
    db.prepare("DELETE FROM recall_documents WHERE id = 3").run();
    insert(db, "d", "heron four");
    expect(db.prepare("SELECT id FROM recall_documents WHERE source_key = 'd'").pluck().get()).toBe(4);
    expect(db.prepare("SELECT rowid FROM recall_fts WHERE recall_fts MATCH 'heron'").pluck().all()).toEqual([
      1, 4,
    ]);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    store.close();
  });
});
