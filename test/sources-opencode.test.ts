/**
 * opencode: the pre-1.2 storage/ JSON files, a 2.x database in WAL mode with a live -wal file
 * (recent rows seen, database bytes unchanged), rows updated in place, and the JSON/database
 * copies of one message counted once.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpencodeV2Db } from "./helpers/opencode-db.js";
import { generateDemoCorpus } from "../src/demo/generate.js";
import {
  UPGRADED_SESSION_MESSAGE,
  UPGRADED_SESSION_V2,
  V1_MESSAGE,
  V1_PART,
  V1_PROJECT,
  V1_SESSION,
} from "../src/demo/opencode-schema.js";
import { exportConversation } from "../src/indexer/export.js";
import { resetDerived } from "../src/indexer/rebuild.js";
import { createHarness, opencodeData, type Harness } from "./sources-harness.js";
import { BASE_TIME } from "./sources-lines.js";

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

/**
 * A session of the storage/ era: session, message and part JSON files. `legacy` writes the
 * oldest layout instead, `project/<dir>/storage/session/{info,message,part}/`, whose session
 * files name no directory.
 */
function storageSession(
  dataDir: string,
  session: { id: string; title: string; directory: string },
  messages: { id: string; role: "user" | "assistant"; text: string; at: number }[],
  legacy = false,
): void {
  const storage = legacy
    ? path.join(dataDir, "project", session.directory.replace(/[^A-Za-z0-9]/g, "-"), "storage", "session")
    : path.join(dataDir, "storage");
  const files = legacy
    ? {
        session: path.join(storage, "info", `${session.id}.json`),
        message: (id: string) => path.join(storage, "message", session.id, `${id}.json`),
        part: (id: string, part: string) => path.join(storage, "part", session.id, id, `${part}.json`),
      }
    : {
        session: path.join(storage, "session", "proj1", `${session.id}.json`),
        message: (id: string) => path.join(storage, "message", session.id, `${id}.json`),
        part: (id: string, part: string) => path.join(storage, "part", id, `${part}.json`),
      };
  const time = { created: BASE_TIME, updated: BASE_TIME };
  writeJson(
    files.session,
    legacy
      ? { id: session.id, version: "0.3.0", title: session.title, time }
      : {
          id: session.id,
          slug: "brave-otter",
          version: "1.1.0",
          projectID: "proj1",
          directory: session.directory,
          title: session.title,
          time,
        },
  );
  for (const m of messages) {
    const info =
      m.role === "user"
        ? { id: m.id, sessionID: session.id, role: "user", time: { created: m.at }, agent: "build" }
        : {
            id: m.id,
            sessionID: session.id,
            role: "assistant",
            time: { created: m.at, completed: m.at + 5 },
            modelID: "test-model",
            providerID: "test",
            parentID: "x",
            path: { cwd: session.directory, root: session.directory },
          };
    writeJson(files.message(m.id), info);
    writeJson(files.part(m.id, `prt_${m.id.slice(4)}a`), {
      id: `prt_${m.id.slice(4)}a`,
      sessionID: session.id,
      messageID: m.id,
      type: "text",
      text: m.text,
    });
  }
}

/** A 2.x database: session_v2 and session_message. */
function createV2Db(file: string): Database.Database {
  return createOpencodeV2Db(file, { project: { id: "p1", worktree: "/nonexistent/oc" }, wal: true });
}

function addV2Session(
  db: Database.Database,
  id: string,
  title: string,
  at: number,
  parent: string | null = null,
): void {
  db.prepare(
    `INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
     VALUES (?, 'p1', ?, 'slug', '/nonexistent/oc', ?, '2.0.26', ?, ?)`,
  ).run(id, parent, title, at, at);
}

function addV2Message(
  db: Database.Database,
  session: string,
  id: string,
  seq: number,
  type: "user" | "assistant",
  text: string,
  at: number,
): void {
  const data =
    type === "user"
      ? { time: { created: at }, text, files: [] }
      : {
          time: { created: at, completed: at + 3 },
          agent: "build",
          model: { id: "m1", providerID: "fake" },
          content: [{ type: "text", id: `t${seq}`, text }],
        };
  db.prepare(
    "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(id, session, type, seq, at, at, JSON.stringify(data));
  db.prepare("UPDATE session_v2 SET time_updated = ? WHERE id = ?").run(at, session);
}

/** The demo's three opencode stores: storage/ JSON files, a 1.x and an upgraded 2.x database. */
const writeDemoOpencode = (h: Harness) =>
  generateDemoCorpus({
    root: h.home,
    seed: 11,
    sources: { claude: false, codex: false, dyad: false, opencode: { messages: 300 } },
  });

describe("opencode", () => {
  let h: Harness | null = null;
  let writer: Database.Database | null = null;
  afterEach(() => {
    writer?.close();
    writer = null;
    h?.close();
    h = null;
  });

  it("reads the pre-1.2 storage/ JSON files, and new messages appended to them", async () => {
    h = await createHarness();
    const data = opencodeData(h.home);
    const session = { id: "ses_storage1", title: "Storage era session", directory: "/nonexistent/oc-old" };
    storageSession(data, session, [
      { id: "msg_0001", role: "user", text: "how do narwhals sleep", at: BASE_TIME },
      { id: "msg_0002", role: "assistant", text: "narwhals rest near the surface", at: BASE_TIME + 10 },
    ]);
    h.index();
    const hits = h.search("narwhals");
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({
      agent: "opencode",
      session: "ses_storage1",
      conversation: "opencode:ses_storage1",
    });
    expect(hits.map((x) => x.cursor).sort()).toEqual(["msg_0001", "msg_0002"]);
    expect(hits[0]!.project).toBe("/nonexistent/oc-old");
    const title = h.store.db
      .prepare("SELECT title FROM recall_conversations WHERE id = 'opencode:ses_storage1'")
      .get();
    expect(title).toEqual({ title: "Storage era session" });

    storageSession(data, session, [
      { id: "msg_0003", role: "user", text: "and narwhal tusks", at: BASE_TIME + 20 },
    ]);
    h.clock.advance(60_000);
    h.index();
    expect(h.search("narwhal tusks")).toHaveLength(1);
    expect(h.count("SELECT count(*) FROM recall_documents")).toBe(3);
    // The exact files are retained.
    const exported: Buffer[] = [];
    exportConversation(h.store.db, "opencode:ses_storage1", (b) => exported.push(Buffer.from(b)));
    expect(Buffer.concat(exported).toString("utf8")).toContain('"text": "and narwhal tusks"');
  });

  it("reads the oldest project/<dir>/storage/session/ layout, and storage/'s copy once opencode migrated it", async () => {
    h = await createHarness();
    const data = opencodeData(h.home);
    const session = { id: "ses_legacy1", title: "Legacy layout", directory: "/nonexistent/oc-legacy" };
    const first = [
      { id: "msg_0101", role: "user" as const, text: "where do puffins nest", at: BASE_TIME },
      { id: "msg_0102", role: "assistant" as const, text: "puffins nest in burrows", at: BASE_TIME + 10 },
    ];
    storageSession(data, session, first, true);
    h.index();
    const hits = h.search("puffins");
    expect(hits).toHaveLength(2);
    // The session file names no directory: the assistant message's cwd is the project of both.
    expect(hits.map((x) => [x.conversation, x.project])).toEqual([
      ["opencode:ses_legacy1", "/nonexistent/oc-legacy"],
      ["opencode:ses_legacy1", "/nonexistent/oc-legacy"],
    ]);
    expect(h.search("puffins", { project: "/nonexistent/oc-legacy" })).toHaveLength(2);

    // Its files gone: a rebuild brings the session back from the retained files.
    rmSync(path.join(data, "project"), { recursive: true });
    resetDerived(h.store.db, ["opencode"]);
    h.restart();
    h.index();
    expect(h.search("puffins", { project: "/nonexistent/oc-legacy" })).toHaveLength(2);

    // opencode's first storage migration copied the session into storage/ and kept writing there.
    storageSession(data, session, [
      ...first,
      { id: "msg_0103", role: "user", text: "and puffin chicks", at: BASE_TIME + 20 },
    ]);
    h.clock.advance(60_000);
    h.index();
    expect(h.search("puffin chicks")).toHaveLength(1);
    expect(h.count("SELECT count(*) FROM recall_documents WHERE session = 'ses_legacy1'")).toBe(3);
  });

  it("counts a message once when both storage/ JSON and the database hold it", async () => {
    h = await createHarness();
    const data = opencodeData(h.home);
    storageSession(data, { id: "ses_both", title: "Imported", directory: "/nonexistent/oc" }, [
      { id: "msg_1000", role: "user", text: "imported axolotl question", at: BASE_TIME },
    ]);
    writer = createV2Db(path.join(data, "opencode.db"));
    addV2Session(writer, "ses_both", "Imported", BASE_TIME);
    addV2Message(writer, "ses_both", "msg_1000", 1, "user", "imported axolotl question", BASE_TIME);
    h.index();
    expect(h.search("axolotl")).toHaveLength(1);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(1);
  });

  it("counts a database file that will not open as malformed, once, and still reads storage/", async () => {
    h = await createHarness();
    const data = opencodeData(h.home);
    storageSession(data, { id: "ses_store", title: "Stored", directory: "/nonexistent/oc" }, [
      { id: "msg_2000", role: "user", text: "stored narwhal question", at: BASE_TIME },
    ]);
    writeFileSync(path.join(data, "opencode.db"), "not a database at all\n".repeat(400));
    h.index();
    expect(h.search("narwhal")).toHaveLength(1);
    expect(h.malformed("opencode")).toBe(1);
    h.clock.advance(60_000);
    h.index();
    expect(h.malformed("opencode")).toBe(1);
  });

  it("reads a WAL database with a live -wal file: recent rows found, database bytes unchanged", async () => {
    h = await createHarness();
    const file = path.join(opencodeData(h.home), "opencode.db");
    writer = createV2Db(file);
    addV2Session(writer, "ses_a", "First", BASE_TIME);
    addV2Message(writer, "ses_a", "msg_a1", 1, "user", "checkpointed pangolin prompt", BASE_TIME);
    writer.pragma("wal_checkpoint(TRUNCATE)");
    // opencode keeps running: nothing checkpointed from here on, recent rows live in the -wal.
    writer.pragma("wal_autocheckpoint = 0");
    addV2Message(writer, "ses_a", "msg_a2", 2, "assistant", "recent pangolin answer", BASE_TIME + 10);
    addV2Session(writer, "ses_b", "Second", BASE_TIME + 20, "ses_a");
    addV2Message(writer, "ses_b", "msg_b1", 1, "user", "brand new pangolin session", BASE_TIME + 20);
    expect(existsSync(`${file}-wal`)).toBe(true);
    const dbBefore = sha(file);
    const walBefore = sha(`${file}-wal`);

    h.index();
    expect(
      h
        .search("pangolin")
        .map((x) => x.cursor)
        .sort(),
    ).toEqual(["msg_a1", "msg_a2", "msg_b1"]);
    expect(sha(file)).toBe(dbBefore);
    expect(sha(`${file}-wal`)).toBe(walBefore);
    const child = h.store.db
      .prepare("SELECT parent FROM recall_conversations WHERE id = 'opencode:ses_b'")
      .get();
    expect(child).toEqual({ parent: "opencode:ses_a" });
    // 2.x session rows leave the model out; the conversation takes its messages' model.
    const model = h.store.db
      .prepare("SELECT model FROM recall_conversations WHERE id = 'opencode:ses_a'")
      .get();
    expect(model).toEqual({ model: "m1" });

    // More rows while the index runs, and a row updated in place (opencode streams into rows).
    addV2Message(writer, "ses_b", "msg_b2", 2, "assistant", "streaming pangolin", BASE_TIME + 30);
    h.clock.advance(60_000);
    h.index();
    expect(h.search("streaming pangolin")).toHaveLength(1);
    writer.prepare("UPDATE session_message SET data = ?, time_updated = ? WHERE id = 'msg_b2'").run(
      JSON.stringify({
        time: { created: BASE_TIME + 30 },
        agent: "build",
        content: [{ type: "text", id: "t", text: "finished pangolin essay" }],
      }),
      BASE_TIME + 40,
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("finished pangolin essay")).toHaveLength(1);
    expect(h.search("streaming pangolin")).toHaveLength(0);
    expect(h.count("SELECT count(*) FROM recall_documents WHERE source_key = 'msg_b2'")).toBe(1);
    expect(sha(file)).toBe(dbBefore);
  });

  it("indexing again in a new process changes no conversation (titles, models, projects)", async () => {
    h = await createHarness();
    await writeDemoOpencode(h);
    h.index();
    const harness = h;
    const conversations = () =>
      harness.store.db
        .prepare(
          "SELECT id, project, session, parent, title, model FROM recall_conversations WHERE source = 'opencode' ORDER BY id",
        )
        .all();
    const before = conversations();
    expect(before.filter((c) => (c as { model: string | null }).model !== null).length).toBeGreaterThan(10);
    h.restart();
    h.clock.advance(60_000);
    h.index();
    expect(conversations()).toEqual(before);
  });

  it("rebuilds sessions whose database rows and storage/ files are gone from what it retained", async () => {
    h = await createHarness();
    await writeDemoOpencode(h);
    h.index();
    const harness = h;
    const documents = () =>
      harness.store.db
        .prepare(
          `SELECT hit_id, source_key, kind, agent, at, project, session, conversation, cursor, role, title, body,
             is_compaction_summary, projection_truncated FROM recall_documents WHERE source = 'opencode' ORDER BY hit_id`,
        )
        .all();
    const before = documents();
    expect(before.length).toBeGreaterThan(200);
    const stores = h.store.db
      .prepare(
        `SELECT DISTINCT CASE WHEN unit = 'row' THEN file ELSE 'storage' END AS store FROM recall_raw_chunks
         WHERE source = 'opencode' ORDER BY 1`,
      )
      .all()
      .map((r) => path.basename((r as { store: string }).store));
    expect(stores).toEqual(["opencode-dev.db", "opencode.db", "storage"]);
    const records = h.count("SELECT count(*) FROM recall_records");

    rmSync(opencodeData(h.home), { recursive: true });
    // Gone without a reset: nothing lost, nothing doubled.
    h.restart();
    h.clock.advance(60_000);
    h.index();
    expect(documents()).toEqual(before);

    // A rebuild brings every document back from the retained rows and files, twice over.
    for (let i = 0; i < 2; i++) {
      resetDerived(h.store.db, ["opencode"]);
      expect(h.count("SELECT count(*) FROM recall_documents WHERE source = 'opencode'")).toBe(0);
      h.restart();
      h.index();
      expect(documents()).toEqual(before);
      expect(h.count("SELECT count(*) FROM recall_records")).toBe(records);
    }
  });

  it("rebuilds a session deleted from a database that is still there", async () => {
    h = await createHarness();
    writer = createV2Db(path.join(opencodeData(h.home), "opencode.db"));
    addV2Session(writer, "ses_keep", "Kept", BASE_TIME);
    addV2Message(writer, "ses_keep", "msg_k1", 1, "user", "kept quokka question", BASE_TIME);
    addV2Session(writer, "ses_gone", "Deleted later", BASE_TIME + 10);
    addV2Message(writer, "ses_gone", "msg_g1", 1, "user", "deleted quokka question", BASE_TIME + 10);
    addV2Message(writer, "ses_gone", "msg_g2", 2, "assistant", "deleted quokka answer", BASE_TIME + 20);
    h.index();
    expect(h.search("quokka")).toHaveLength(3);
    writer.prepare("DELETE FROM session_message WHERE session_id = 'ses_gone'").run();
    writer.prepare("DELETE FROM session_v2 WHERE id = 'ses_gone'").run();
    resetDerived(h.store.db, ["opencode"]);
    h.restart();
    h.index();
    const hits = h.search("quokka");
    expect(hits.map((x) => x.cursor).sort()).toEqual(["msg_g1", "msg_g2", "msg_k1"]);
    expect(hits.find((x) => x.cursor === "msg_g1")).toMatchObject({
      session: "ses_gone",
      project: "/nonexistent/oc",
    });
  });
  it("replays deleted sessions a page at a time, every one of them once", async () => {
    h = await createHarness();
    const file = path.join(opencodeData(h.home), "opencode.db");
    writer = createV2Db(file);
    // More sessions than one page of the replay (SESSION_PAGE, 256), with a kept one among them.
    const ids = Array.from({ length: 600 }, (_, i) => `ses_${String(i).padStart(4, "0")}`);
    for (const [i, id] of ids.entries()) {
      addV2Session(writer, id, `Session ${i}`, BASE_TIME + i);
      addV2Message(writer, id, `msg_${i}`, 1, "user", `wombat question ${i}`, BASE_TIME + i);
    }
    h.index();
    expect(h.count("SELECT count(*) FROM recall_documents WHERE source = 'opencode'")).toBe(600);
    writer.prepare("DELETE FROM session_message WHERE session_id <> 'ses_0300'").run();
    writer.prepare("DELETE FROM session_v2 WHERE id <> 'ses_0300'").run();
    resetDerived(h.store.db, ["opencode"]);
    h.restart();
    h.index();
    const rows = h.store.db
      .prepare(
        "SELECT session, count(*) AS n FROM recall_documents WHERE source = 'opencode' GROUP BY session ORDER BY session",
      )
      .all() as { session: string; n: number }[];
    expect(rows.map((r) => r.session)).toEqual(ids);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });

  it("follows a 1.x database that opencode upgrades to 2.x while recall keeps its connection", async () => {
    h = await createHarness();
    const file = path.join(opencodeData(h.home), "opencode.db");
    mkdirSync(path.dirname(file), { recursive: true });
    writer = new Database(file);
    writer.pragma("journal_mode = WAL");
    writer.exec([V1_PROJECT, V1_SESSION, V1_MESSAGE, V1_PART].join("\n"));
    writer
      .prepare(
        "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('p1', ?, 1, 1, '[]')",
      )
      .run("/nonexistent/oc");
    writer
      .prepare(
        `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         VALUES ('ses_old', 'p1', 's', '/nonexistent/oc', 'Old', '1.15.10', ?, ?)`,
      )
      .run(BASE_TIME, BASE_TIME);
    writer
      .prepare(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_1', 'ses_old', ?, ?, ?)",
      )
      .run(
        BASE_TIME,
        BASE_TIME,
        JSON.stringify({ role: "user", time: { created: BASE_TIME }, agent: "build" }),
      );
    writer
      .prepare(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_1', 'msg_1', 'ses_old', ?, ?, ?)",
      )
      .run(BASE_TIME, BASE_TIME, JSON.stringify({ type: "text", text: "old era armadillo" }));
    h.index();
    expect(h.search("armadillo")).toHaveLength(1);

    // opencode 2.x adds its tables (empty at first), copies the 1.x rows, then writes a new session.
    writer.exec([UPGRADED_SESSION_V2, UPGRADED_SESSION_MESSAGE].join("\n"));
    h.clock.advance(10 * 60_000);
    h.index();
    addV2Session(writer, "ses_old", "Old", BASE_TIME);
    addV2Message(writer, "ses_old", "msg_1", 1, "user", "old era armadillo", BASE_TIME);
    const later = BASE_TIME + 86_400_000;
    addV2Session(writer, "ses_new", "New", later);
    addV2Message(writer, "ses_new", "msg_2", 1, "user", "new era okapi", later);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(10 * 60_000);
      h.index();
    }
    expect(h.search("okapi")).toHaveLength(1);
    expect(h.search("armadillo")).toHaveLength(1);
  });
});
