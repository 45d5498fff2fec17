import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { attachChatSearch, type ChatSearch } from "./attach-chat-search.js";
import { drainChatBatch, finishChatRebuild, prepareChatIndex } from "../indexer/chat-queue.js";
import { readRewrites } from "../store/rewrites.js";
import { withTermStatisticsPlans } from "../../test/helpers/term-plans.js";
import { plannerTuning } from "../search/planner.js";

interface Env {
  f: DyadFixture;
  search: ChatSearch;
}

describe("embedded chat index", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  async function setup(seed?: (f: DyadFixture) => void): Promise<Env> {
    const t = tempDir();
    const f = createDyadDb(t.dir);
    seed?.(f);
    const search = await attachChatSearch(f.db, { file: f.file });
    cleanup = () => {
      f.db.close();
      t.cleanup();
    };
    return { f, search };
  }
  const docs = (f: DyadFixture) =>
    f.db.prepare("SELECT id, chat_id AS chatId, title, body FROM recall_documents ORDER BY id").all() as {
      id: number;
      chatId: number;
      title: string;
      body: string;
    }[];
  const match = (f: DyadFixture, q: string) =>
    (
      f.db.prepare("SELECT rowid AS id FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid").all(q) as {
        id: number;
      }[]
    ).map((r) => r.id);
  const drain = async (s: ChatSearch) => {
    await s.indexer.drain();
  };
  /** Two apps, and one indexed chat about herons in the first. */
  const heronInAppOne = async () => {
    const env = await setup();
    const one = env.f.app("one");
    const two = env.f.app("two");
    const chat = env.f.chat(one, "Heron chat");
    env.f.message(chat, "user", "the heron migration plan");
    await drain(env.search);
    return { ...env, one, two, chat };
  };
  /** The chats search_chats finds for a query in one app. */
  const found = async (s: ChatSearch, appId: number, query: string) => {
    const out = JSON.parse(await s.tools[0].execute({ query }, { appId })) as {
      results: { chat_id: number }[];
    };
    return out.results.map((r) => r.chat_id);
  };

  it("creates the FTS table, queues and triggers, and marks existing messages for backfill", async () => {
    const { f, search } = await setup((f) => {
      const chat = f.chat(f.app(), "Old chat");
      f.message(chat, "user", "pre-existing message about pelicans");
    });
    const names = (
      f.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'recall_%'").all() as { name: string }[]
    ).map((r) => r.name);
    for (const name of [
      "recall_fts",
      "recall_documents",
      "recall_dirty_messages",
      "recall_dirty_chats",
      "recall_meta",
      "recall_messages_insert",
      "recall_messages_update",
      "recall_messages_delete",
      "recall_chats_title",
      "recall_chats_delete",
      "recall_messages_chat",
    ]) {
      expect(names).toContain(name);
    }
    expect(f.db.prepare("SELECT count(*) AS n FROM recall_dirty_messages").get()).toEqual({ n: 1 });
    expect(search.migration.backup).not.toBeNull();
    await drain(search);
    expect(match(f, '"pelicans"')).toHaveLength(1);
  });

  it("fails loudly without FTS5", async () => {
    const t = tempDir();
    const f = createDyadDb(t.dir);
    cleanup = () => {
      f.db.close();
      t.cleanup();
    };
    await expect(attachChatSearch(f.db, { file: f.file, probe: () => false })).rejects.toMatchObject({
      kind: "Unavailable",
      message: expect.stringContaining("FTS5"),
    });
  });

  it("keeps the index correct through insert, update, title change, delete and cascade", async () => {
    const { f, search } = await setup();
    const app = f.app();
    const chat = f.chat(app, "Alpha");
    const m1 = f.message(chat, "user", "first zebra note");
    const m2 = f.message(chat, "assistant", "reply about giraffes");
    await drain(search);
    expect(match(f, '"zebra"')).toEqual([m1]);

    f.db.prepare("UPDATE messages SET content = 'first okapi note' WHERE id = ?").run(m1);
    await drain(search);
    expect(match(f, '"zebra"')).toEqual([]);
    expect(match(f, '"okapi"')).toEqual([m1]);

    f.db.prepare("UPDATE chats SET title = 'Renamed flamingo' WHERE id = ?").run(chat);
    await drain(search);
    expect(match(f, '"flamingo"').sort()).toEqual([m1, m2]);
    expect(docs(f).every((d) => d.title === "Renamed flamingo")).toBe(true);

    f.db.prepare("DELETE FROM messages WHERE id = ?").run(m2);
    // Deletions leave through the triggers at once, before any drain.
    expect(match(f, '"giraffes"')).toEqual([]);

    const other = f.chat(app, "Beta");
    const m3 = f.message(other, "user", "cascade walrus");
    await drain(search);
    expect(match(f, '"walrus"')).toEqual([m3]);
    f.db.prepare("DELETE FROM chats WHERE id = ?").run(other);
    expect(match(f, '"walrus"')).toEqual([]);
    f.db.prepare("DELETE FROM apps WHERE id = ?").run(app);
    expect(docs(f)).toEqual([]);
    expect(f.db.prepare("SELECT count(*) AS n FROM recall_dirty_messages").get()).toEqual({ n: 0 });
  });

  it("a chat titled after term lists were built is found by its title's common word", async () => {
    const { f, search } = await setup();
    const app = f.app();
    for (let i = 0; i < 30; i++) f.message(f.chat(app, `Kestrel ${i}`), "user", `note ${i}`);
    const late = f.chat(app, null);
    f.message(late, "user", "an untitled start");
    await drain(search);
    await withTermStatisticsPlans(async () => {
      expect(await found(search, app, "kestrel")).not.toContain(late); // the word's lists are built now
      f.db.prepare("UPDATE chats SET title = 'Kestrel kestrel kestrel' WHERE id = ?").run(late);
      await drain(search);
      expect((await found(search, app, "kestrel"))[0]).toBe(late);
    });
  });

  /** An empty reply (nothing to index yet: no document) in one chat, and 30 chats saying "kestrel". */
  const replyAmongKestrels = async () => {
    const env = await setup();
    const { f, search } = env;
    const app = f.app();
    const early = f.chat(app, "Early");
    const reply = f.message(early, "assistant", "");
    for (let i = 0; i < 30; i++) f.message(f.chat(app, `Chat ${i}`), "user", `kestrel note ${i}`);
    await drain(search);
    /** The word's lists are built, then the reply gets the word: it must come first. */
    const replyFoundFirst = () =>
      withTermStatisticsPlans(async () => {
        expect(await found(search, app, "kestrel")).not.toContain(early);
        f.db
          .prepare("UPDATE messages SET content = 'kestrel kestrel kestrel kestrel' WHERE id = ?")
          .run(reply);
        await drain(search);
        expect((await found(search, app, "kestrel"))[0]).toBe(early);
      });
    return { ...env, app, replyFoundFirst };
  };

  it("a message first indexed after newer ones is found by a common word through lists built before", async () => {
    await (await replyAmongKestrels()).replyFoundFirst();
  });

  it("a rebuild the host wrote into after its last batch ends with a later drain, and edits after it restart term lists", async () => {
    const { f, search, app, replyFoundFirst } = await replyAmongKestrels();
    await search.indexer.stop();
    f.db.prepare("UPDATE recall_meta SET value = '0' WHERE key = 'projection_version'").run();
    search.indexer.start();
    const rebuilt = search.indexer.drain(); // its one batch runs now, then it yields to the host
    f.message(f.chat(app, "Later"), "user", "written while the rebuild ends");
    await rebuilt;
    expect(search.indexer.figures().rebuilding).toBe(true); // the host's message is still queued
    await drain(search);
    expect(search.indexer.figures().rebuilding).toBe(false);
    await replyFoundFirst();
  });

  it("search_chats reads one snapshot: a document another connection deletes mid-search is not lost", async () => {
    const { f, search } = await setup();
    const app = f.app();
    for (let i = 0; i < 5; i++) f.message(f.chat(app, `Chat ${i}`), "user", `kestrel note ${i}`);
    await drain(search);
    const before = await found(search, app, "kestrel");
    const other = new Database(f.file);
    let deleted = 0;
    plannerTuning.observe = (result) => {
      if (deleted++ > 0) return; // between ranking and reading the rows: another process deletes the best
      other.prepare("DELETE FROM recall_documents WHERE id = ?").run(result.rows[0]!.id);
    };
    try {
      expect(await found(search, app, "kestrel")).toEqual(before);
      expect(deleted).toBeGreaterThan(0);
    } finally {
      delete plannerTuning.observe;
      other.close();
    }
  });

  it("de-duplicates repeated updates of a streaming message in the dirty queue", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app());
    const id = f.message(chat, "assistant", "");
    for (let i = 0; i < 50; i++)
      f.db.prepare("UPDATE messages SET content = ? WHERE id = ?").run(`partial ${i}`, id);
    expect(f.db.prepare("SELECT count(*) AS n FROM recall_dirty_messages").get()).toEqual({ n: 1 });
    search.indexer.settled(id);
    expect(await search.indexer.waitForIdle(5000)).toBe(true);
  });

  it("skips empty projections", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app());
    f.message(chat, "assistant", "<think>only thinking</think>");
    await drain(search);
    expect(docs(f)).toEqual([]);
  });

  it("rebuilds every document when the projection version changes, and removes orphans at start-up", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app());
    f.message(chat, "user", "rebuild heron");
    await drain(search);
    f.db.prepare("UPDATE recall_meta SET value = '0' WHERE key = 'projection_version'").run();
    f.db.prepare("UPDATE recall_documents SET body = 'stale'").run();
    f.db
      .prepare(
        "INSERT INTO recall_documents (id, source, source_key, own_hit_id, kind, agent, at, role, body, projection_version) VALUES (999, 'chat', '999', 'chat:1:999', 'chat', 'dyad', 0, 'user', 'orphan', 1)",
      )
      .run();
    const rewrites = readRewrites(f.db);
    search.indexer.start();
    expect(search.indexer.figures().rebuilding).toBe(true);
    await drain(search);
    await search.indexer.stop();
    // Term statistics carried by a search's cache are dropped at the rebuild's start and end (not
    // by each batch of it).
    expect(Number(readRewrites(f.db))).toBe(Number(rewrites ?? 0) + 2);
    expect(match(f, '"heron"')).toHaveLength(1);
    expect(match(f, '"orphan"')).toEqual([]);
    expect(search.indexer.figures().rebuilding).toBe(false);
  });

  it("a projection rebuild the host stopped midway is still one when it resumes, to its end", async () => {
    const { f } = await setup();
    const first = await attachChatSearch(f.db, {
      file: f.file,
      indexer: { limits: { maxRows: 2, maxBytes: 1 << 20 } },
    });
    const chat = f.chat(f.app());
    for (let i = 0; i < 50; i++) f.message(chat, "user", `heron note ${i}`);
    await first.indexer.drain();
    f.db.prepare("UPDATE recall_meta SET value = '0' WHERE key = 'projection_version'").run();
    const before = Number(readRewrites(f.db) ?? 0);
    first.indexer.start();
    await first.indexer.stop(); // the host quits mid-rebuild
    expect(
      (f.db.prepare("SELECT count(*) AS n FROM recall_dirty_messages").get() as { n: number }).n,
    ).toBeGreaterThan(0);
    const second = await attachChatSearch(f.db, { file: f.file }); // the host starts again
    second.indexer.start();
    expect(second.indexer.figures().rebuilding).toBe(true);
    await second.indexer.drain();
    await second.indexer.stop();
    expect(second.indexer.figures().rebuilding).toBe(false);
    // Dropped at its start and, once every document was rewritten, at its end.
    expect(Number(readRewrites(f.db))).toBe(before + 2);
  });

  it("a rebuild is not ended while its queue still holds work (another process began one)", async () => {
    const { f } = await setup();
    const chat = f.chat(f.app());
    f.message(chat, "user", "heron");
    f.db.prepare("UPDATE recall_meta SET value = '0' WHERE key = 'projection_version'").run();
    expect(prepareChatIndex(f.db).rebuild).toBe(true);
    finishChatRebuild(f.db); // the message is still queued
    expect(prepareChatIndex(f.db).rebuild).toBe(true);
    while (drainChatBatch(f.db).more);
    finishChatRebuild(f.db);
    expect(prepareChatIndex(f.db).rebuild).toBe(false);
  });

  it("drains in bounded batches that resume without losing work, bounded in bytes too", async () => {
    const { f } = await setup();
    const chat = f.chat(f.app());
    for (let i = 0; i < 130; i++)
      f.message(chat, "user", `batch item ${i} ${"padding ".repeat(i === 7 ? 5000 : 10)}`);
    let batches = 0;
    let more = true;
    while (more) {
      const r = drainChatBatch(f.db, { maxRows: 25, maxBytes: 8 * 1024 });
      expect(r.indexed).toBeLessThanOrEqual(25);
      // Bytes stay under the bound unless a single oversized message makes the batch.
      if (r.indexed > 1) expect(r.bytes).toBeLessThanOrEqual(8 * 1024);
      more = r.more;
      batches++;
    }
    expect(batches).toBeGreaterThan(6);
    expect(f.db.prepare("SELECT count(*) AS n FROM recall_documents").get()).toEqual({ n: 130 });
  });

  it("reports content-free figures", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app());
    for (let i = 0; i < 10; i++) f.message(chat, "user", `figure ${i}`);
    await drain(search);
    const figures = search.indexer.figures();
    expect(figures).toMatchObject({ backlog: 0, indexed: 10 });
    expect(figures.batches).toBeGreaterThan(0);
    expect(JSON.stringify(figures)).not.toContain("figure");
  });

  it("re-indexes a chat moved to another app: the old app no longer finds it, the new one does", async () => {
    const { f, search, one, two, chat } = await heronInAppOne();
    const appOf = () =>
      f.db.prepare("SELECT DISTINCT app_id AS app FROM recall_documents WHERE chat_id = ?").all(chat);
    expect(appOf()).toEqual([{ app: one }]);
    // Moved by another connection (the host app), as Dyad would.
    const host = new Database(f.file);
    host.prepare("UPDATE chats SET app_id = ? WHERE id = ?").run(two, chat);
    host.close();
    // At once, before any drain: the old app no longer finds it.
    expect(await found(search, one, "heron")).toEqual([]);
    expect(await found(search, two, "heron")).toEqual([chat]);
    await drain(search);
    expect(appOf()).toEqual([{ app: two }]);
    expect(await found(search, one, "heron")).toEqual([]);
  });

  it("moves a message to another chat's app at once, before any drain", async () => {
    const { f, search } = await setup();
    const one = f.app("one");
    const two = f.app("two");
    const from = f.chat(one, "From");
    const to = f.chat(two, "To");
    const id = f.message(from, "user", "the wandering okapi note");
    await drain(search);
    expect(await found(search, one, "okapi")).toEqual([from]);
    f.db.prepare("UPDATE messages SET chat_id = ? WHERE id = ?").run(to, id);
    expect(await found(search, one, "okapi")).toEqual([]);
    expect(await found(search, two, "okapi")).toEqual([to]);
    await drain(search);
    expect(await found(search, two, "okapi")).toEqual([to]);
  });

  it("upgrading an index that left moved chats to the next drain moves them at once", async () => {
    const { f, search, one, two, chat } = await heronInAppOne();
    await search.indexer.stop();
    // The index as schema 4 left it: the app trigger only queued the chat, so a move between
    // drains left the documents under the old app.
    f.db.exec(`DROP TRIGGER recall_messages_moved; DROP TRIGGER recall_chats_app;
      CREATE TRIGGER recall_chats_app AFTER UPDATE OF app_id ON chats BEGIN
        INSERT OR IGNORE INTO recall_dirty_chats (chat_id) VALUES (new.id);
      END;
      DELETE FROM recall_migrations WHERE version >= 5;`);
    f.db.prepare("UPDATE chats SET app_id = ? WHERE id = ?").run(two, chat);
    expect(await found(search, one, "heron")).toEqual([chat]);
    f.db.exec("ALTER TABLE recall_documents DROP COLUMN record"); // schema 6's, which schema 4 lacked
    const again = await attachChatSearch(f.db, { file: f.file });
    expect(await found(again, one, "heron")).toEqual([]);
    expect(await found(again, two, "heron")).toEqual([chat]);
    f.db.prepare("UPDATE chats SET app_id = ? WHERE id = ?").run(one, chat);
    expect(await found(again, two, "heron")).toEqual([]);
    expect(await found(again, one, "heron")).toEqual([chat]);
  });

  it("refuses a host database missing a column it needs, before installing anything", async () => {
    const t = tempDir();
    const f = createDyadDb(t.dir);
    cleanup = () => {
      f.db.close();
      t.cleanup();
    };
    f.db.exec("ALTER TABLE messages DROP COLUMN is_compaction_summary");
    await expect(attachChatSearch(f.db, { file: f.file })).rejects.toMatchObject({
      kind: "Validation",
      message: expect.stringContaining("messages table has no is_compaction_summary column"),
    });
    expect(f.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'recall_%'").get()).toEqual({
      n: 0,
    });
  });

  it("re-creates its triggers when a host migration rebuilt the messages table, and catches up", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app(), "Rebuilt");
    const id = f.message(chat, "user", "before the rebuild ostrich");
    await drain(search);
    await search.indexer.stop();
    // Drizzle's table rebuild: the new table has none of recall's triggers or index.
    const ddl = (
      f.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() as { sql: string }
    ).sql;
    f.db.exec(`
      ${ddl.replace(/CREATE TABLE [`"]?messages[`"]?/, "CREATE TABLE __new_messages")};
      INSERT INTO __new_messages SELECT * FROM messages;
      DROP TABLE messages;
      ALTER TABLE __new_messages RENAME TO messages;
    `);
    f.db.prepare("UPDATE messages SET content = 'after the rebuild emu' WHERE id = ?").run(id);
    const again = await attachChatSearch(f.db, { file: f.file });
    await again.indexer.drain();
    expect(match(f, "emu")).toEqual([id]);
    expect(match(f, "ostrich")).toEqual([]);
    f.message(chat, "user", "a later cassowary");
    await again.indexer.drain();
    expect(match(f, "cassowary")).toHaveLength(1);
  });

  it("counts and retries a background drain that fails, without bringing the host down", async () => {
    const { f, search } = await setup();
    const chat = f.chat(f.app());
    f.message(chat, "user", "a locked kiwi");
    f.db.pragma("busy_timeout = 20");
    // Another process holds the write lock past the busy timeout.
    const other = new Database(f.file);
    other.exec("BEGIN IMMEDIATE");
    search.indexer.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(search.indexer.figures().failedDrains).toBeGreaterThan(0);
    other.exec("COMMIT");
    other.close();
    // The retry (after a second) indexes it.
    const deadline = Date.now() + 5_000;
    while (match(f, "kiwi").length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(match(f, "kiwi")).toHaveLength(1);
    await search.indexer.stop();
  });
});
