import Database from "better-sqlite3";
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { checkedFtsRows } from "../../test/helpers/fts-answers.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { createSearchHistoryTool } from "../tools/search-history.js";
import { openDatabase } from "../store/open.js";
import { attachChatSearch, type ChatSearch } from "./attach-chat-search.js";
import { defaultHistoryFile, runSplit, type SplitStep } from "./history-split.js";
import { createHash } from "node:crypto";

/** Every recall table of a file (FTS5 shadow tables too) as one SHA-256 each, over all its rows in order. */
function dumpRecallTables(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'recall%' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name <> 'recall_split_log' ORDER BY name",
      )
      .all() as { name: string }[];
    const out: Record<string, string> = {};
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).raw().all();
      out[name] = createHash("sha256")
        .update(JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)))
        .digest("hex");
    }
    return out;
  } finally {
    db.close();
  }
}

const ftsAnswers = (file: string) => checkedFtsRows(file, [...WORDS, "東京", "message"]);

const WORDS = [
  "heron",
  "pelican",
  "migration",
  "budget",
  "lighthouse",
  "kestrel",
  "deploy",
  "schema",
  "otter",
];

/** A host with two apps, chats and messages indexed, and rows in the tables an embedded index rarely fills. */
async function seededHost(dir: string, messages = 60): Promise<DyadFixture> {
  const f = createDyadDb(dir);
  const apps = [f.app("one"), f.app("two")];
  let n = 0;
  for (let c = 0; c < 8; c++) {
    const chat = f.chat(apps[c % 2]!, `chat ${WORDS[c % WORDS.length]} ${c}`);
    for (let m = 0; m < messages / 8; m++, n++)
      f.message(
        chat,
        m % 2 ? "assistant" : "user",
        `message ${n} about ${WORDS[n % WORDS.length]} and ${WORDS[(n * 7) % WORDS.length]} 東京 café`,
      );
  }
  const search = await attachChatSearch(f.db, { file: f.file });
  await search.indexer.drain();
  await search.close();
  const raw = f.db.prepare(
    "INSERT INTO recall_raw_chunks (source, file, offset, length, captured_at, data) VALUES ('dyad', 'x.jsonl', ?, 3, 1, ?)",
  );
  for (let i = 0; i < 5; i++) raw.run(i * 3, Buffer.from([i, 0, 255]));
  f.db.prepare("INSERT INTO recall_tombstones (scope, value, created_at) VALUES ('session', 's1', 1)").run();
  f.db.prepare("INSERT INTO recall_checkpoints (source, key, updated_at) VALUES ('dyad', 'k', 2)").run();
  f.db.prepare("INSERT INTO recall_session_aliases (alias, session, source) VALUES ('a', 's', 'dyad')").run();
  return f;
}

type Answers = string[];

/** search_chats, read_chat and search_history answers over whatever the attach reads now. */
async function answers(search: ChatSearch): Promise<Answers> {
  const [searchChats, readChat] = search.tools;
  const out: Answers = [];
  for (const query of ["heron", "pelican budget", "東京", "lighthouse migration"])
    for (const appId of [1, 2]) out.push(await searchChats.execute({ query }, { appId }));
  out.push(await readChat.execute({ chat_id: 1, around_message_id: 3 }, { appId: 1 }));
  out.push(await readChat.execute({ chat_id: 2, offset: 2, limit: 4 }, { appId: 2 }));
  const history = createSearchHistoryTool(search.readDb(), "fts5");
  for (const query of ["heron", "kestrel deploy"])
    out.push(await history.execute(history.inputSchema.parse({ query }), {}));
  return out;
}

describe("the history.db split", () => {
  let cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups = [];
    delete process.env.RECALL_SPLIT;
    delete process.env.RECALL_SPLIT_READ;
    delete process.env.RECALL_INDEXING;
  });
  const temp = () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    return t.dir;
  };

  it("copies, verifies and switches: backup, counts and hashes recorded, same answers before, during and after, writes kept", async () => {
    const dir = temp();
    const f = await seededHost(dir);
    cleanups.push(() => void f.db.close());
    const legacyBefore = dumpRecallTables(f.file);
    const before = await attachChatSearch(f.db, { file: f.file });
    const expected = await answers(before);
    await before.close();

    let sampled = 0;
    let written = 0;
    const phases = new Set<string>();
    const search: ChatSearch = await attachChatSearch(f.db, {
      file: f.file,
      split: {
        run: {
          maxRows: 7,
          onStep: async (step: SplitStep) => {
            phases.add(step.phase);
            // Sampled between batches until the host writes (which changes the answers themselves).
            if (step.batch % 3 === 0 && written === 0) {
              expect(await answers(search)).toEqual(expected);
              sampled++;
            }
            // A message written during the copy, after its table was passed.
            if (step.phase === "copy" && written === 0 && step.batch >= 20) {
              f.message(1, "user", "a late note about ospreys");
              written++;
            }
          },
        },
      },
    });
    cleanups.push(() => search.close());
    const report = (await search.split)!;
    expect(report.status).toBe("switched");
    expect(sampled).toBeGreaterThan(4);
    expect(written).toBe(1);
    expect([...phases]).toEqual(expect.arrayContaining(["copy", "verify", "switch"]));
    // CPU time: a busy machine stretches wall time with other processes' turns.
    expect(report.longestBatchCpuMs).toBeLessThan(50);

    // Backup present, restorable, and the host's recall tables as they were.
    expect(report.backup && existsSync(report.backup)).toBeTruthy();
    const restored = path.join(dir, "restored.db");
    copyFileSync(report.backup!, restored);
    expect(dumpRecallTables(restored)).toEqual(legacyBefore);

    // Counts and hashes recorded in history.db's meta, with the time.
    const history = new Database(report.history, { readonly: true });
    const meta = Object.fromEntries(
      (
        history.prepare("SELECT key, value FROM recall_history_meta").all() as {
          key: string;
          value: string;
        }[]
      ).map((r) => [r.key, r.value]),
    );
    history.close();
    expect(meta.phase).toBe("switched");
    expect(meta.engine).toBe("fts5");
    expect(JSON.parse(meta.verified_counts!)).toEqual(report.counts);
    expect(JSON.parse(meta.verified_hashes!)).toEqual(report.hashes);
    expect(Date.parse(meta.verified_at!)).not.toBeNaN();
    expect(report.counts.recall_raw_chunks).toBe(5);
    expect(report.counts.recall_tombstones).toBe(1);
    expect(report.counts.recall_documents).toBe(
      (f.db.prepare("SELECT count(*) AS n FROM recall_documents").get() as { n: number }).n,
    );

    // After: read from history.db, the same answers as the legacy tables give at the same moment,
    // before and after the message written during the split is indexed; and that message is found.
    const bothWays = async () => {
      expect(search.readDb()).not.toBe(f.db);
      const fromHistory = await answers(search);
      process.env.RECALL_SPLIT_READ = "legacy";
      expect(search.readDb()).toBe(f.db);
      expect(await answers(search)).toEqual(fromHistory);
      delete process.env.RECALL_SPLIT_READ;
      return fromHistory;
    };
    expect((await bothWays()).slice(0, 2)).not.toEqual(expected.slice(0, 2)); // "indexing": the write is queued
    await search.indexer.drain();
    expect(await bothWays()).not.toEqual(expected);
    const found = JSON.parse(await search.tools[0].execute({ query: "ospreys" }, { appId: 1 })) as {
      results: { matches: { message_id: number }[] }[];
    };
    expect(found.results).toHaveLength(1);
    // A message the host deletes leaves history.db's answers at once.
    const id = found.results[0]!.matches[0]!.message_id;
    f.db.prepare("DELETE FROM messages WHERE id = ?").run(id);
    const gone = JSON.parse(await search.tools[0].execute({ query: "ospreys" }, { appId: 1 })) as {
      results: [];
    };
    expect(gone.results).toHaveLength(0);
  });

  it("leaves the legacy tables byte-identical, and answers as before from history.db", async () => {
    const dir = temp();
    const f = await seededHost(dir);
    cleanups.push(() => void f.db.close());
    const legacyBefore = dumpRecallTables(f.file);
    const search = await attachChatSearch(f.db, { file: f.file, split: { run: { maxRows: 5 } } });
    cleanups.push(() => search.close());
    const expected = await answers(search);
    expect(search.readDb()).toBe(f.db);
    expect((await search.split)!.status).toBe("switched");
    expect(dumpRecallTables(f.file)).toEqual(legacyBefore);
    expect(search.readDb()).not.toBe(f.db);
    expect(await answers(search)).toEqual(expected);
  });

  it("resumes after a kill at any of 24 seeded batch boundaries to the same verified result", async () => {
    const dir = temp();
    const f = await seededHost(dir, 40);
    f.db.close();
    const template = path.join(dir, "template.db");
    copyFileSync(f.file, template);
    const reference = await runSplit({ hostFile: f.file, maxRows: 5 });
    expect(reference.status).toBe("switched");
    const total = reference.batches;
    let seed = 36;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 24; i++) {
      const host = path.join(dir, `host-${i}.db`);
      copyFileSync(template, host);
      const killAt = 1 + Math.floor(random() * total);
      await expect(
        runSplit({
          hostFile: host,
          maxRows: 5,
          onStep: (s) => {
            if (s.batch === killAt) throw new Error("killed");
          },
        }),
      ).rejects.toThrow("killed");
      const resumed = await runSplit({ hostFile: host, maxRows: 5 });
      expect(resumed.status, `kill at batch ${killAt}`).toBe("switched");
      expect(resumed.counts).toEqual(reference.counts);
      expect(resumed.hashes).toEqual(reference.hashes);
      // The copied tables alike (history.db's own meta differs in times, FTS5's segments in where
      // the batches fell), and its FTS5 index sound and finding the same documents.
      const copy = (file: string) =>
        Object.entries(dumpRecallTables(file)).filter(([name]) => !/^recall_(history_|fts_)/.test(name));
      expect(copy(defaultHistoryFile(host))).toEqual(copy(reference.history));
      expect(ftsAnswers(defaultHistoryFile(host))).toEqual(ftsAnswers(reference.history));
    }
  });

  it("detects a copy with one changed byte: readers stay on legacy, the half-made file is kept, the reason in one line", async () => {
    const dir = temp();
    const f = await seededHost(dir);
    cleanups.push(() => void f.db.close());
    const before = await attachChatSearch(f.db, { file: f.file });
    const expected = await answers(before);
    await before.close();
    const to = defaultHistoryFile(f.file);
    const search = await attachChatSearch(f.db, {
      file: f.file,
      split: {
        run: {
          onStep: (step) => {
            if (step.phase !== "copied") return;
            const copy = openDatabase(to);
            copy.prepare("UPDATE recall_documents SET body = 'M' || substr(body, 2) WHERE id = 5").run();
            copy.close();
          },
        },
      },
    });
    cleanups.push(() => search.close());
    const report = (await search.split)!;
    expect(report.status).toBe("failed");
    expect(report.reason).toMatch(/^recall_documents: the SHA-256 of history\.db's rows differs/);
    expect(report.reason).not.toContain("\n");
    expect(report.kept).toMatch(/\.history\.db\.failed-/);
    expect(existsSync(report.kept!)).toBe(true);
    expect(existsSync(to)).toBe(false);
    expect(search.readDb()).toBe(f.db);
    expect(await answers(search)).toEqual(expected);
    // The host's schema has no split log left.
    expect(f.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'recall_split%'").all()).toEqual([]);
  });

  it("kill switches: no split, readers to legacy after a switch, indexing paused", async () => {
    const dir = temp();
    const f = await seededHost(dir);
    cleanups.push(() => void f.db.close());

    process.env.RECALL_SPLIT = "off";
    const off = await attachChatSearch(f.db, { file: f.file, split: {} });
    expect(off.split).toBeNull();
    expect(off.readDb()).toBe(f.db);
    await off.close();
    expect(readdirSync(dir).some((n) => n.includes("history.db"))).toBe(false);
    delete process.env.RECALL_SPLIT;

    const search = await attachChatSearch(f.db, { file: f.file, split: {} });
    cleanups.push(() => search.close());
    expect((await search.split)!.status).toBe("switched");
    expect(search.readDb()).not.toBe(f.db);
    const expected = await answers(search);
    process.env.RECALL_SPLIT_READ = "legacy"; // no restart: the next call reads legacy
    expect(search.readDb()).toBe(f.db);
    expect(await answers(search)).toEqual(expected);
    delete process.env.RECALL_SPLIT_READ;
    expect(search.readDb()).not.toBe(f.db);

    process.env.RECALL_INDEXING = "paused";
    f.message(1, "user", "a paused note about grebes");
    await search.indexer.drain();
    const grebes = async () =>
      (JSON.parse(await search.tools[0].execute({ query: "grebes" }, { appId: 1 })) as { results: [] })
        .results;
    expect(await grebes()).toHaveLength(0);
    expect(search.indexer.figures().backlog).toBeGreaterThan(0);
    delete process.env.RECALL_INDEXING;
    await search.indexer.drain();
    expect(await grebes()).toHaveLength(1);

    // A split already under way stops at its next batch when switched off.
    const other = await seededHost(temp());
    cleanups.push(() => void other.db.close());
    const stopped = await runSplit({
      hostFile: other.file,
      maxRows: 5,
      onStep: (s) => {
        if (s.batch === 3) process.env.RECALL_SPLIT = "off";
      },
    });
    expect(stopped.status).toBe("off");
    expect(stopped.batches).toBe(3);
  });
});
