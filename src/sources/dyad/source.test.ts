import { mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../../test/helpers/dyad.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { backfill, runTick } from "../../indexer/backfill.js";
import { PROJECTION_VERSION } from "../../projection/index.js";
import { searchHistory } from "../../search/history.js";
import { openHistoryStore, type HistoryStore } from "../../store/history-store.js";
import { ConfigSchema } from "../../config/schema.js";
import { bindChatApp, serverProject } from "./apps.js";
import {
  dyadDatabases,
  DyadSource,
  indexedDyadDatabases,
  MAX_CHATS_PER_TICK,
  RANGE_IDS,
  RECONCILE_INTERVAL_MS,
} from "./source.js";
import { withTermStatisticsPlans } from "../../../test/helpers/term-plans.js";
import { documentRows, useDocumentText } from "../../../test/helpers/document-text.js";

describe("Dyad source (standalone, read-only)", () => {
  let cleanup = () => {};
  let store: HistoryStore | null = null;
  let source: DyadSource | null = null;
  let dyad: DyadFixture | null = null;
  afterEach(() => {
    source?.close();
    store?.close();
    dyad?.db.close();
    source = store = dyad = null;
    cleanup();
  });

  const setup = async () => {
    const t = tempDir("recall-dyad-");
    cleanup = t.cleanup;
    const appsDir = path.join(t.dir, "dyad-apps");
    const repo = path.join(t.dir, "work", "shop");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    mkdirSync(path.join(repo, "src"), { recursive: true });
    mkdirSync(path.join(appsDir, "notes-app", ".git"), { recursive: true });
    dyad = createDyadDb(t.dir);
    const shop = Number(
      dyad.db.prepare("INSERT INTO apps (name, path) VALUES (?, ?)").run("shop", path.join(repo, "src"))
        .lastInsertRowid,
    );
    const notes = Number(
      dyad.db.prepare("INSERT INTO apps (name, path) VALUES (?, ?)").run("notes", "notes-app")
        .lastInsertRowid,
    );
    const checkout = dyad.chat(shop, "Checkout flow");
    const sync = dyad.chat(notes, "Sync design");
    const m1 = dyad.message(checkout, "user", "How should the checkout handle a declined card?");
    const m2 = dyad.message(
      checkout,
      "assistant",
      'Retry once, then show the wallaby fallback. <dyad-write path="a.ts">secret body</dyad-write>',
    );
    const m3 = dyad.message(sync, "user", "We decided on wallaby conflict resolution for sync");
    store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    source = new DyadSource({ name: "dyad", file: dyad.file, appsDir });
    let now = Date.UTC(2026, 5, 1);
    const clock = { now: () => now };
    const index = () =>
      backfill(store!.db, [source!], {
        projectionVersion: PROJECTION_VERSION,
        clock,
        group: { records: 0, millis: 0 },
      });
    /** One background tick after the reconcile interval (a pass over every range). */
    const tickLater = () => {
      now += RECONCILE_INTERVAL_MS + 1;
      for (let i = 0; i < 4; i++)
        runTick(store!.db, [source!], { projectionVersion: PROJECTION_VERSION, clock });
    };
    const db = store.db;
    const docs = () =>
      documentRows(
        db,
        "d.hit_id AS hitId, d.kind, d.agent, d.app_id AS appId, d.chat_id AS chatId, d.message, d.conversation, d.project, d.title",
        "ORDER BY d.id",
      ) as Record<string, unknown>[];
    return {
      t,
      repo,
      appsDir,
      shop,
      notes,
      checkout,
      sync,
      m1,
      m2,
      m3,
      index,
      tickLater,
      docs,
      db,
      dyad: dyad,
    };
  };

  it("indexes chats as kind chat with app, chat, message ids and the app's project", async () => {
    const s = await setup();
    s.index();
    const docs = s.docs();
    expect(docs).toHaveLength(3);
    expect(docs[0]).toMatchObject({
      hitId: `chat:dyad:${s.checkout}:${s.m1}`,
      kind: "chat",
      agent: "dyad",
      appId: s.shop,
      chatId: s.checkout,
      message: String(s.m1),
      conversation: `chat:dyad:${s.checkout}`,
      project: s.repo, // the app folder's git root
      title: "Checkout flow",
    });
    expect(docs[2]).toMatchObject({ appId: s.notes, project: path.join(s.appsDir, "notes-app") });
    expect(docs.map((d) => d.body).join(" ")).not.toContain("secret body");
    const hits = searchHistory(s.db, "fts5", "wallaby", { kind: "chat" }, 10).hits;
    expect(hits.map((h) => h.id).sort()).toEqual(
      [`chat:dyad:${s.checkout}:${s.m2}`, `chat:dyad:${s.sync}:${s.m3}`].sort(),
    );
    expect(searchHistory(s.db, "fts5", "wallaby", { project: s.repo }, 10).hits).toHaveLength(1);
    const records = s.db.prepare("SELECT count(*) AS n FROM recall_records").get() as { n: number };
    expect(records.n).toBe(3);
  });

  it("follows new messages, edits, renames and deletions; never writes the database", async () => {
    const s = await setup();
    s.index();
    const bytes = readFileSync(s.dyad.file);
    const mtime = statSync(s.dyad.file).mtimeMs;

    // A new message (the newest range is checked every tick).
    const m4 = s.dyad.message(s.sync, "assistant", "The quokka merge strategy keeps both edits");
    s.tickLater();
    expect(searchHistory(s.db, "fts5", "quokka", {}, 5).hits.map((h) => h.id)).toEqual([
      `chat:dyad:${s.sync}:${m4}`,
    ]);

    // An edit that changes the text's length.
    s.dyad.db
      .prepare("UPDATE messages SET content = ? WHERE id = ?")
      .run("How should checkout treat a numbat refund?", s.m1);
    // A rename.
    s.dyad.db.prepare("UPDATE chats SET title = ? WHERE id = ?").run("Platypus payments", s.checkout);
    s.tickLater();
    expect(searchHistory(s.db, "fts5", "numbat", {}, 5).hits).toHaveLength(1);
    expect(searchHistory(s.db, "fts5", "declined", {}, 5).hits).toHaveLength(0);
    const retitled = searchHistory(s.db, "fts5", "platypus", {}, 5)
      .hits.map((h) => h.id)
      .sort();
    expect(retitled).toEqual([`chat:dyad:${s.checkout}:${s.m1}`, `chat:dyad:${s.checkout}:${s.m2}`].sort());

    // A message deleted in the app leaves the index (document and retained record).
    s.dyad.db.prepare("DELETE FROM messages WHERE id = ?").run(m4);
    s.tickLater();
    expect(searchHistory(s.db, "fts5", "quokka", {}, 5).hits).toHaveLength(0);
    expect(
      s.db.prepare("SELECT count(*) AS n FROM recall_records WHERE record_key = ?").get(String(m4)),
    ).toEqual({ n: 0 });

    // A chat deleted in the app (its messages cascade) leaves with its conversation.
    s.dyad.db.prepare("DELETE FROM chats WHERE id = ?").run(s.sync);
    s.tickLater();
    expect(searchHistory(s.db, "fts5", "wallaby", {}, 5).hits.map((h) => h.id)).toEqual([
      `chat:dyad:${s.checkout}:${s.m2}`,
    ]);
    expect(
      s.db.prepare("SELECT count(*) AS n FROM recall_conversations WHERE id = ?").get(`chat:dyad:${s.sync}`),
    ).toEqual({ n: 0 });
    expect(s.db.prepare("SELECT count(*) AS n FROM recall_documents").get()).toEqual({ n: 2 });

    // The file recall read was only read (writes above went through the fixture's own handle
    // into its WAL; the main file recall opened is unchanged by recall).
    expect(statSync(s.dyad.file).mtimeMs).toBe(mtime);
    expect(readFileSync(s.dyad.file).equals(bytes)).toBe(true);
  });

  it("finds a renamed chat's messages by the new title's word through term lists built before", async () => {
    const s = await setup();
    s.index();
    await withTermStatisticsPlans(async () => {
      const hits = () => searchHistory(s.db, "fts5", "wallaby", {}, 5).hits.map((h) => h.id);
      expect(hits()).not.toContain(`chat:dyad:${s.checkout}:${s.m1}`); // the word's lists are built now
      s.dyad.db.prepare("UPDATE chats SET title = ? WHERE id = ?").run("Wallaby checkout", s.checkout);
      s.tickLater();
      expect(hits()).toContain(`chat:dyad:${s.checkout}:${s.m1}`);
    });
  });

  it("reads many ranges in bounded batches and reconciles them all", async () => {
    const s = await setup();
    const insert = s.dyad.db.prepare(
      "INSERT INTO messages (chat_id, role, content, created_at) VALUES (?, ?, ?, ?)",
    );
    s.dyad.db.transaction(() => {
      for (let i = 0; i < RANGE_IDS * 5; i++)
        insert.run(s.checkout, i % 2 ? "assistant" : "user", `echidna note ${i}`, 1_700_000_100 + i);
    })();
    const result = s.index();
    expect(result.records).toBe(3 + RANGE_IDS * 5);
    expect(result.ticks).toBeGreaterThan(1);
    expect(searchHistory(s.db, "fts5", "echidna", {}, 50).hits).toHaveLength(50);
    // Delete a slice in the middle: one reconcile pass removes exactly those.
    s.dyad.db.prepare("DELETE FROM messages WHERE content LIKE 'echidna note 2__'").run();
    s.tickLater();
    useDocumentText(s.db);
    const left = s.db
      .prepare("SELECT count(*) AS n FROM recall_document_text WHERE body LIKE 'echidna note%'")
      .get() as { n: number };
    expect(left.n).toBe(RANGE_IDS * 5 - 100);
  });

  it("ends a backfill whose chat pass takes several ticks, beside a source that finished long before", async () => {
    const s = await setup();
    s.dyad.db.transaction(() => {
      for (let i = 0; i < MAX_CHATS_PER_TICK + 50; i++)
        s.dyad.message(s.dyad.chat(s.shop, `numbat chat ${i}`), "user", `numbat note ${i}`);
    })();
    const other = createDyadDb(s.t.dir, "other.db");
    other.message(other.chat(other.app()), "user", "a small database");
    const second = new DyadSource({ name: "dyad-other", file: other.file, appsDir: s.appsDir });
    let groups = 0;
    try {
      const result = backfill(s.db, [source!, second], {
        projectionVersion: PROJECTION_VERSION,
        clock: { now: () => Date.UTC(2026, 5, 1) },
        group: { records: 0, millis: 0 },
        // Before the fix it never ended: a new chat pass started on the tick after each one ended.
        shouldStop: () => ++groups > 2000,
      });
      expect(groups).toBeLessThan(200);
      expect(result.records).toBe(3 + MAX_CHATS_PER_TICK + 50 + 1);
    } finally {
      second.close();
      other.db.close();
    }
  });

  it("binds the MCP server's project (git root of its cwd) to the app whose folder resolves to it", async () => {
    const s = await setup();
    const databases = [
      { name: "dyad-missing", file: path.join(s.t.dir, "nope.db"), appsDir: s.appsDir },
      { name: "dyad", file: s.dyad.file, appsDir: s.appsDir },
    ];
    expect(serverProject(path.join(s.repo, "src"))).toBe(s.repo);
    expect(bindChatApp(databases, serverProject(path.join(s.repo, "src")))).toEqual({
      source: "dyad",
      file: s.dyad.file,
      appId: s.shop,
      project: s.repo,
    });
    expect(bindChatApp(databases, path.join(s.appsDir, "notes-app"))?.appId).toBe(s.notes);
    expect(bindChatApp(databases, s.t.dir)).toBeNull();
  });

  it("leaves Dyad's own database out of indexing and of app binding when config turns it off", () => {
    const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.config" };
    const on = ConfigSchema.parse({ sources: { dyadDatabases: ["/data/other.db"] } });
    const off = ConfigSchema.parse({ sources: { dyad: false, dyadDatabases: ["/data/other.db"] } });
    expect(indexedDyadDatabases(env, on).map((d) => d.file)).toEqual([
      path.join("/home/u/.config", "dyad", "sqlite.db"),
      "/data/other.db",
    ]);
    expect(indexedDyadDatabases(env, off).map((d) => d.file)).toEqual(["/data/other.db"]);
  });

  it("binds the app whose own folder holds the cwd when several apps share one git root, and none from elsewhere", async () => {
    const s = await setup();
    // A home kept under git: app folders without a .git of their own all resolve to it.
    const home = path.join(s.t.dir, "home");
    mkdirSync(path.join(home, ".git"), { recursive: true });
    const apps = path.join(home, "dyad-apps");
    for (const name of ["alpha", "beta"]) mkdirSync(path.join(apps, name, "src"), { recursive: true });
    const alpha = Number(
      s.dyad.db.prepare("INSERT INTO apps (name, path) VALUES ('alpha', ?)").run(path.join(apps, "alpha"))
        .lastInsertRowid,
    );
    const beta = Number(
      s.dyad.db.prepare("INSERT INTO apps (name, path) VALUES ('beta', ?)").run(path.join(apps, "beta"))
        .lastInsertRowid,
    );
    const databases = [{ name: "dyad", file: s.dyad.file, appsDir: s.appsDir }];
    expect(bindChatApp(databases, path.join(apps, "beta"))?.appId).toBe(beta);
    expect(bindChatApp(databases, path.join(apps, "beta", "src"))?.appId).toBe(beta);
    expect(bindChatApp(databases, path.join(apps, "alpha", "src"))?.appId).toBe(alpha);
    // In the repository but in neither app: which app is meant cannot be told.
    expect(bindChatApp(databases, home)).toBeNull();
    expect(bindChatApp(databases, apps)).toBeNull();
  });

  it("finds Dyad's own database and registered ones", () => {
    const config = ConfigSchema.parse({
      sources: { dyadDatabases: ["/data/other.db", "/data/other.db"], dyadAppsDir: "/apps" },
    });
    const dbs = dyadDatabases({ HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.config" }, config);
    expect(dbs.map((d) => d.file)).toEqual(["/home/u/.config/dyad/sqlite.db", "/data/other.db"]);
    expect(dbs[0]!.name).toBe("dyad");
    expect(dbs[1]!.name).toMatch(/^dyad-[0-9a-f]{8}$/);
    expect(dbs.every((d) => d.appsDir === "/apps")).toBe(true);
    const tilde = dyadDatabases(
      { HOME: "/home/u" },
      ConfigSchema.parse({ sources: { dyadDatabases: ["~/x.db"], dyadAppsDir: "~/apps" } }),
    );
    expect(tilde.map((d) => [d.file, d.appsDir])).toEqual([
      ["/home/u/.config/dyad/sqlite.db", "/home/u/apps"],
      ["/home/u/x.db", "/home/u/apps"],
    ]);
  });
});
