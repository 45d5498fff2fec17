import Database from "better-sqlite3";
import { copyFileSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { isRecallError } from "../core/errors.js";
import { attachChatSearch, type ChatSearch } from "./attach-chat-search.js";
import { dropLegacy, type DropLegacyOptions } from "./drop-legacy.js";
import { runSplit } from "./history-split.js";

const WORDS = ["heron", "pelican", "budget", "lighthouse", "kestrel", "otter"];

async function indexedHost(dir: string): Promise<DyadFixture> {
  const f = createDyadDb(dir);
  const apps = [f.app("one"), f.app("two")];
  for (let c = 0; c < 6; c++) {
    const chat = f.chat(apps[c % 2]!, `chat ${WORDS[c]} ${c}`);
    for (let m = 0; m < 8; m++)
      f.message(
        chat,
        m % 2 ? "assistant" : "user",
        `message ${c}.${m} about ${WORDS[(c + m) % 6]} and ${WORDS[(c * m) % 6]}`,
      );
  }
  const search = await attachChatSearch(f.db, { file: f.file });
  await search.indexer.drain();
  await search.close();
  return f;
}

/** The host's own tables (every table not recall's), their definitions and all their rows, as one SHA-256. */
function hostTables(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const hash = createHash("sha256");
    const tables = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'recall%' AND name NOT LIKE 'sqlite%' ORDER BY name",
      )
      .all() as { name: string; sql: string }[];
    for (const t of tables) {
      hash.update(`${t.name}\n${t.sql}\n`);
      const rows = db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).raw().all();
      hash.update(JSON.stringify(rows, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("hex") : v)));
    }
    return hash.digest("hex");
  } finally {
    db.close();
  }
}

const recallTables = (db: DyadFixture["db"]) =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'recall%' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);

async function answers(search: ChatSearch): Promise<string[]> {
  const [searchChats, readChat] = search.tools;
  const out: string[] = [];
  for (const query of ["heron", "pelican budget", "kestrel"])
    for (const appId of [1, 2]) out.push(await searchChats.execute({ query }, { appId }));
  out.push(await readChat.execute({ chat_id: 1, around_message_id: 3 }, { appId: 1 }));
  return out;
}

const found = async (search: ChatSearch, query: string) =>
  (JSON.parse(await search.tools[0].execute({ query }, { appId: 1 })) as { results: unknown[] }).results
    .length;

describe("recall split --drop-legacy", () => {
  let cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups = [];
    delete process.env.RECALL_SPLIT_READ;
  });
  const host = async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const f = await indexedHost(t.dir);
    cleanups.push(() => void f.db.close());
    return { f, dir: t.dir };
  };

  it("refuses in one line before a verified switch, and changes nothing", async () => {
    const { f } = await host();
    const before = recallTables(f.db);
    const error = await dropLegacy({ hostFile: f.file }).catch((e: unknown) => e);
    expect(isRecallError(error) && error.kind).toBe("Usage");
    expect((error as Error).message).toMatch(
      /^--drop-legacy: .*not a split's history\.db; run `recall split --db .*` until it reports the switch first$/,
    );
    expect(recallTables(f.db)).toEqual(before);
  });

  it("after the switch: its own backup, the host's tables byte-identical, readers on history.db, the host attaches and indexes", async () => {
    const { f, dir } = await host();
    expect((await runSplit({ hostFile: f.file })).status).toBe("switched");
    const attached = await attachChatSearch(f.db, { file: f.file, split: {} });
    await attached.split;
    const expected = await answers(attached);
    await attached.close();
    const ownBefore = hostTables(f.file);
    const documents = (f.db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n;

    process.env.RECALL_SPLIT_READ = "legacy";
    await expect(dropLegacy({ hostFile: f.file })).rejects.toThrow(
      "--drop-legacy: RECALL_SPLIT_READ=legacy keeps readers on the legacy tables; unset it first",
    );
    delete process.env.RECALL_SPLIT_READ;
    expect(hostTables(f.file)).toBe(ownBefore);
    const report = await dropLegacy({ hostFile: f.file });
    expect(report.dropped).toEqual(
      expect.arrayContaining(["recall_fts", "recall_documents", "recall_split_log"]),
    );
    expect(report.kept).toEqual([
      "recall_dirty_chats",
      "recall_dirty_messages",
      "recall_legacy_dropped",
      "recall_migrations",
    ]);
    expect(recallTables(f.db)).toEqual(report.kept);
    expect(f.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'recall_split%'").all()).toEqual([]);
    expect(f.db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(hostTables(f.file)).toBe(ownBefore);
    // The backup, taken first, holds the legacy tables and restores.
    expect(existsSync(report.backup!)).toBe(true);
    const restored = path.join(dir, "restored.db");
    copyFileSync(report.backup!, restored);
    const r = new Database(restored, { readonly: true });
    expect((r.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n).toBe(
      documents,
    );
    r.close();

    // A host dropped by an earlier recall takes the steps added since (they find no index there).
    f.db.prepare("DELETE FROM recall_migrations WHERE version >= 7").run();
    // Attached again (with the split option and without): history.db, the same answers.
    for (const options of [{ file: f.file, split: {} }, { file: f.file }]) {
      const search = await attachChatSearch(f.db, options);
      expect(search.readDb()).not.toBe(f.db);
      expect(await answers(search)).toEqual(expected);
      await search.close();
    }
    // The host writes: a new message is indexed into history.db, a deleted one leaves it.
    const search = await attachChatSearch(f.db, { file: f.file, split: {} });
    cleanups.push(() => search.close());
    const id = f.message(1, "user", "a late note about ospreys");
    await search.indexer.drain();
    expect(await found(search, "ospreys")).toBe(1);
    f.db.prepare("DELETE FROM messages WHERE id = ?").run(id);
    await search.indexer.drain();
    expect(await found(search, "ospreys")).toBe(0);
    // Again: nothing left to drop, no second backup.
    const again = await dropLegacy({ hostFile: f.file });
    expect([again.dropped, again.backup]).toEqual([[], null]);
  });

  it("resumes after a kill at each stage to the same result", async () => {
    const stages: NonNullable<Parameters<NonNullable<DropLegacyOptions["onStage"]>>[0]>[] = [
      "backup",
      "marked",
      "applied",
      "dropped-table",
    ];
    let reference: string[] | null = null;
    for (const stage of stages) {
      const { f } = await host();
      expect((await runSplit({ hostFile: f.file })).status).toBe("switched");
      const own = hostTables(f.file);
      await expect(
        dropLegacy({
          hostFile: f.file,
          onStage: (s) => {
            if (s === stage) throw new Error("killed");
          },
        }),
      ).rejects.toThrow("killed");
      const report = await dropLegacy({ hostFile: f.file });
      expect(report.status).toBe("dropped");
      expect(hostTables(f.file)).toBe(own);
      reference ??= recallTables(f.db);
      expect(recallTables(f.db)).toEqual(reference);
      const search = await attachChatSearch(f.db, { file: f.file });
      expect(await found(search, "heron")).toBeGreaterThan(0);
      await search.close();
    }
  });
});
