import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { chooseEngine, probeFts5 } from "./fts-probe.js";
import { HISTORY_FILE, HISTORY_PAGE_SIZE, openHistoryStore } from "./history-store.js";

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

  const insert = (db: Database.Database, id: string, body: string) =>
    db
      .prepare(
        `INSERT INTO recall_documents (source, source_key, hit_id, kind, agent, at, role, title, body, projection_version)
         VALUES ('test', ?, ?, 'transcript', 'claude', 1, 'user', '', ?, 1)`,
      )
      .run(id, `transcript:test:${id}`, body);

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
});
