/**
 * Incremental JSONL reading (Claude Code, Codex): torn lines, oversized lines, replaced files,
 * deleted files and export, forget, appends during indexing, compressed twins, restarts.
 */
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { backfill } from "../src/indexer/backfill.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { sessionsForAlias } from "../src/search/session-aliases.js";
import { sourceCoverage } from "../src/indexer/coverage.js";
import { exportConversation } from "../src/indexer/export.js";
import { decompressRaw } from "../src/indexer/raw-codec.js";
import { JsonlFileSource } from "../src/sources/files/jsonl-source.js";
import { IO_RETRY_FIRST_MS } from "../src/sources/shared/io-retry.js";
import { forget } from "../src/indexer/forget.js";
import { resetCursors, resetDerived } from "../src/indexer/rebuild.js";
import { runCli } from "./helpers/cli.js";
import { failOpens, failReads } from "./helpers/failing-reads.js";
import { claudeProjects, codexSessions, createHarness, type Harness } from "./sources-harness.js";
import {
  BASE_TIME,
  claudeLine,
  codexAgentTurn,
  codexMeta,
  codexTurnContext,
  codexUserTurn,
  hugeClaudeLine,
  zstd,
} from "./sources-lines.js";
import { documentRows } from "./helpers/document-text.js";

const SESSION = "5f0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b";

/** One line of a streamed Claude response: its content blocks share message.id and requestId. */
const responseLine = (uuid: string, text: string, response: string, at: number) =>
  claudeLine({
    uuid,
    session: SESSION,
    role: "assistant",
    text,
    messageId: `msg_${response}`,
    requestId: `req_${response}`,
    at,
  });
const SESSION2 = "6a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d";
const THREAD = "019a0000-1111-7222-8333-444455556666";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function exportBytes(h: Harness, conversation: string): Buffer {
  const parts: Buffer[] = [];
  exportConversation(h.store.db, conversation, (b) => parts.push(Buffer.from(b)));
  return Buffer.concat(parts);
}

describe("incremental JSONL sources", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  const claudeFile = (harness: Harness, session = SESSION) => {
    const dir = path.join(claudeProjects(harness.home), "-nonexistent-recall-test-proj");
    mkdirSync(dir, { recursive: true });
    return path.join(dir, `${session}.jsonl`);
  };
  /** Where Codex writes a thread's rollout on 2026-06-<day>. */
  const codexRollout = (harness: Harness, day: string, thread = THREAD) => {
    const dir = path.join(codexSessions(harness.home), "2026", "06", day);
    mkdirSync(dir, { recursive: true });
    return path.join(dir, `rollout-2026-06-${day}T09-00-00-${thread}.jsonl`);
  };
  const docs = (harness: Harness) =>
    documentRows<{ k: string }>(harness.store.db, "d.source_key AS k", "ORDER BY d.id");

  it("reports exact backlog and gone-file figures once no file waits, however fast the ticks come", async () => {
    h = await createHarness();
    const sessions = [SESSION, SESSION2, THREAD];
    for (const [i, session] of sessions.entries()) {
      const lines = Array.from({ length: 400 }, (_, j) =>
        claudeLine({ uuid: `p${i}-${j}`, session, text: `platypus ${i} ${j}`, at: BASE_TIME + j }),
      );
      writeFileSync(claudeFile(h, session), lines.join(""));
    }
    const last = () => {
      const figures = h!
        .tick({ maxBytes: 64 * 1024, maxFiles: 1 })
        .find((t) => t.source === "claude-code")!.progress!;
      return { backlogFiles: figures.backlogFiles, backlogBytes: figures.backlogBytes, gone: figures.gone };
    };
    let figures = last();
    let ticks = 1;
    for (; ticks < 40 && figures.backlogFiles > 0; ticks++) figures = last();
    expect(ticks).toBeGreaterThan(3);
    expect(figures).toEqual({ backlogFiles: 0, backlogBytes: 0, gone: 0 });
    expect(h.count("SELECT count(*) FROM recall_documents")).toBe(1200);

    rmSync(claudeFile(h, SESSION2));
    h.clock.advance(60_000);
    h.index();
    expect(last()).toEqual({ backlogFiles: 0, backlogBytes: 0, gone: 1 });
  });

  it("holds back a partial last line and indexes it once completed", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    const second = claudeLine({
      uuid: "u2",
      session: SESSION,
      text: "second quokka prompt",
      at: BASE_TIME + 1000,
    });
    writeFileSync(
      file,
      claudeLine({ uuid: "u1", session: SESSION, text: "first wombat prompt" }) + second.slice(0, 40),
    );
    h.index();
    expect(h.search("wombat")).toHaveLength(1);
    expect(h.search("quokka")).toHaveLength(0);
    appendFileSync(file, second.slice(40));
    h.clock.advance(60_000);
    h.index();
    expect(h.search("quokka")).toHaveLength(1);
    expect(h.search("wombat")).toHaveLength(1);
    expect(docs(h).map((d) => d.k)).toEqual(["u1", "u2"]);
    // The torn bytes were retained once, after the line was complete.
    expect(exportBytes(h, `claude:${SESSION}`).equals(readFileSync(file))).toBe(true);
  });

  it("discards a 20 MB line in bounded memory, counts it, and keeps its bytes", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(file, claudeLine({ uuid: "a", session: SESSION, text: "before the huge paste" }));
    appendFileSync(file, hugeClaudeLine(SESSION, "huge", 20 * 1024 * 1024, "giraffehugetoken"));
    appendFileSync(file, claudeLine({ uuid: "b", session: SESSION, text: "after the huge paste" }));
    const before = process.memoryUsage().rss;
    let peak = before;
    h.index({ limits: {} });
    peak = Math.max(peak, process.memoryUsage().rss);
    // "before" and "after" are stopwords: the two lines around the huge one are both found.
    expect(h.search("huge paste")).toHaveLength(2);
    expect(h.search("giraffehugetoken")).toHaveLength(0);
    const [claude] = sourceCoverage(h.store.db, ["claude-code"]);
    expect(claude!.oversized).toBe(1);
    expect(claude!.raw.bytes).toBe(readFileSync(file).length);
    // Generous: the line alone would cost ~40 MB as a string and more parsed.
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
    expect(sha256(exportBytes(h, `claude:${SESSION}`))).toBe(sha256(readFileSync(file)));
    // Re-reading does not count it again.
    h.restart();
    h.clock.advance(60_000);
    h.index();
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.oversized).toBe(1);
  });

  it("gets past a 20 MB line that follows a streamed response still held open", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(
      file,
      claudeLine({
        uuid: "a1",
        session: SESSION,
        role: "assistant",
        text: "held yak answer",
        messageId: "m",
        requestId: "r",
      }),
    );
    appendFileSync(file, hugeClaudeLine(SESSION, "huge", 20 * 1024 * 1024, "yaktoken"));
    appendFileSync(
      file,
      claudeLine({ uuid: "u2", session: SESSION, text: "after the yak", at: BASE_TIME + 5 }),
    );
    h.index();
    expect(h.search("yak")).toHaveLength(2);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.oversized).toBe(1);
  });

  it("re-reads a truncated and rewritten file as a new version, keeping the earlier one, without duplicates", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(
      file,
      ["alpha kiwi", "beta kiwi", "gamma kiwi"]
        .map((text, i) => claudeLine({ uuid: `old${i}`, session: SESSION, text, at: BASE_TIME + 100 + i }))
        .join("") +
        `${JSON.stringify({ type: "custom-title", sessionId: SESSION, customTitle: "Kiwi notes" })}\n`,
    );
    h.index();
    expect(h.search("kiwi")).toHaveLength(3);
    const first = readFileSync(file);

    // Truncated, then rewritten shorter with other content: the earlier version stays.
    truncateSync(file, 0);
    writeFileSync(
      file,
      claudeLine({ uuid: "new0", session: SESSION, text: "delta mango", at: BASE_TIME + 5 }),
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("mango")).toHaveLength(1);
    expect(h.search("kiwi")).toHaveLength(3);
    expect(
      h.store.db
        .prepare("SELECT title, started_at AS s, next_ordinal AS n FROM recall_conversations WHERE id = ?")
        .get(`claude:${SESSION}`),
    ).toEqual({ title: "Kiwi notes", s: BASE_TIME + 5, n: 4 });
    expect(sessionsForAlias(h.store.db, "Kiwi notes")).toContain(SESSION);
    expect(docs(h).map((d) => d.k)).toEqual(["old0", "old1", "old2", "new0"]);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(4);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.rewritten).toBe(1);
    // Export gives the newest version; the earlier one by its epoch.
    expect(exportBytes(h, `claude:${SESSION}`).equals(readFileSync(file))).toBe(true);
    const earlier: Buffer[] = [];
    exportConversation(h.store.db, `claude:${SESSION}`, (b) => earlier.push(Buffer.from(b)), file, 0);
    expect(Buffer.concat(earlier).equals(first)).toBe(true);

    // Replaced by a file of the same size with a different head: the same line id with other
    // text is kept beside the earlier one, under the version's mark.
    const same = readFileSync(file).toString("utf8").replace("delta mango", "omega mango");
    writeFileSync(file, same);
    h.clock.advance(60_000);
    h.index();
    expect(h.search("omega mango")).toHaveLength(1);
    expect(h.search("delta mango")).toHaveLength(1);
    expect(docs(h).map((d) => d.k)).toEqual(["old0", "old1", "old2", "new0", "new0~2"]);

    // Rewritten with lines it held before, in any version: the same records, not copies.
    writeFileSync(
      file,
      claudeLine({ uuid: "old1", session: SESSION, text: "beta kiwi", at: BASE_TIME + 101 }) + same,
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("kiwi")).toHaveLength(3);
    expect(h.search("omega mango")).toHaveLength(1);
    expect(docs(h)).toHaveLength(5);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.rewritten).toBe(3);

    // Grown again after the rewrite: appended lines only.
    appendFileSync(
      file,
      claudeLine({ uuid: "new1", session: SESSION, text: "epsilon mango", at: BASE_TIME + 9 }),
    );
    h.clock.advance(60_000);
    h.index();
    expect(docs(h).map((d) => d.k)).toEqual(["old0", "old1", "old2", "new0", "new0~2", "new1"]);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(6);
  });

  it("re-reads a file rewritten in place past its head before it grew, and exports the new bytes", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    const filler = "padding ".repeat(120);
    const lines = Array.from({ length: 12 }, (_, i) =>
      claudeLine({
        uuid: `l${i}`,
        session: SESSION,
        text: `line ${i} of the heron log ${filler}`,
        at: BASE_TIME + i,
      }),
    );
    writeFileSync(file, lines.join(""));
    h.index();
    expect(docs(h)).toHaveLength(12);

    // One line near the end edited in place (same length), then a line appended: past the head.
    const edited = readFileSync(file, "utf8").replace("line 10 of the heron", "line 10 of the egret");
    expect(Buffer.byteLength(edited.split("egret")[0]!)).toBeGreaterThan(4096);
    writeFileSync(
      file,
      edited + claudeLine({ uuid: "l12", session: SESSION, text: "appended heron line", at: BASE_TIME + 12 }),
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("egret")).toHaveLength(1);
    // The line as it was before the edit stays retained, beside the edited one.
    expect(h.search("line 10 of the heron")).toHaveLength(1);
    expect(docs(h)).toHaveLength(14);
    expect(h.malformed("claude-code")).toBe(0);
    expect(exportBytes(h, `claude:${SESSION}`).equals(readFileSync(file))).toBe(true);

    // Emptied (a new epoch), then written again: growth from nothing, not another rewrite.
    truncateSync(file, 0);
    h.clock.advance(60_000);
    h.index();
    const epoch = () =>
      (
        JSON.parse(
          h!.store.db
            .prepare("SELECT state FROM recall_checkpoints WHERE source = 'claude-code'")
            .pluck()
            .get() as string,
        ) as { epoch: number }
      ).epoch;
    const emptied = epoch();
    for (const line of lines.slice(0, 2)) {
      appendFileSync(file, line);
      h.clock.advance(60_000);
      h.index();
    }
    expect(epoch()).toBe(emptied);
    // Lines written again with the same text are the same records: nothing doubled, nothing lost.
    expect(docs(h)).toHaveLength(14);
  });

  it("keeps a deleted transcript searchable and readable, exports it byte for byte, and rebuilds from it", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(
      file,
      claudeLine({ uuid: "d1", session: SESSION, text: "the pelican decision", at: BASE_TIME }),
    );
    appendFileSync(file, hugeClaudeLine(SESSION, "d2", 20 * 1024 * 1024, "oversizedpelican"));
    appendFileSync(
      file,
      claudeLine({ uuid: "d3", session: SESSION, text: "the pelican follow-up", at: BASE_TIME + 2 }),
    );
    appendFileSync(
      file,
      claudeLine({
        uuid: "d4",
        session: SESSION,
        role: "assistant",
        text: "noted pelican",
        at: BASE_TIME + 3,
      }),
    );
    const original = readFileSync(file);
    h.index();
    expect(h.search("pelican")).toHaveLength(3);
    const records = h.count("SELECT count(*) FROM recall_records");

    rmSync(file); // Claude Code's cleanupPeriodDays
    h.clock.advance(60_000);
    h.index();
    expect(h.search("pelican")).toHaveLength(3);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(records);
    expect(h.count("SELECT count(*) FROM recall_records WHERE text LIKE '%pelican follow-up%'")).toBe(1);
    expect(sha256(exportBytes(h, `claude:${SESSION}`))).toBe(sha256(original));
    expect(h.count("SELECT count(*) FROM recall_raw_chunks WHERE codec NOT IN ('brotli', 'none')")).toBe(0);

    // Chunks kept before schema v4 are raw deflate: the export and the rebuild below read them.
    const rows = h.store.db.prepare("SELECT id, data, codec FROM recall_raw_chunks").all() as {
      id: number;
      data: Buffer;
      codec: string;
    }[];
    const toDeflate = h.store.db.prepare(
      "UPDATE recall_raw_chunks SET data = ?, codec = 'deflate' WHERE id = ?",
    );
    for (const row of rows) toDeflate.run(deflateRawSync(decompressRaw(row.data, row.codec)), row.id);

    // The CLI gives the same bytes back (beside RECALL_HOME: export never writes inside it).
    const out = path.join(path.dirname(h.recallHome), "exported.jsonl");
    const cli = runCli(["export", `claude:${SESSION}`, "--out", out], {
      RECALL_HOME: h.recallHome,
      HOME: h.home,
    });
    expect(cli.stderr).toBe("");
    expect(cli.status).toBe(0);
    expect(sha256(readFileSync(out))).toBe(sha256(original));
    // Given by session id, to stdout (a small second session: the test runner buffers stdout).
    const small = claudeFile(h, SESSION2);
    writeFileSync(small, claudeLine({ uuid: "e1", session: SESSION2, text: "small pelican", at: BASE_TIME }));
    h.clock.advance(60_000);
    h.index();
    // A chunk under 512 bytes is kept as it is (raw-codec.ts).
    expect(
      h.count(
        "SELECT count(*) FROM recall_raw_chunks WHERE codec = 'none' AND data = ?",
        readFileSync(small),
      ),
    ).toBe(1);
    const byStdout = runCli(["export", SESSION2], { RECALL_HOME: h.recallHome, HOME: h.home });
    expect(byStdout.status).toBe(0);
    expect(byStdout.stdout).toBe(readFileSync(small, "utf8"));
    expect(
      runCli(["export", "claude:no-such-session"], { RECALL_HOME: h.recallHome, HOME: h.home }).status,
    ).toBe(3);
    rmSync(small);

    // A rebuild with the source gone replays the retained bytes through the same parser.
    resetDerived(h.store.db, ["claude-code", "codex", "opencode"]);
    expect(h.search("pelican")).toHaveLength(0);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(records + 1);
    h.restart();
    h.index();
    expect(h.search("pelican")).toHaveLength(4);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(records + 1);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.oversized).toBe(1);
    expect(sha256(exportBytes(h, `claude:${SESSION}`))).toBe(sha256(original));
  });

  it("forgets a session, a project and a time range, and a rescan or rebuild does not bring them back", async () => {
    h = await createHarness();
    const f1 = claudeFile(h, SESSION);
    const f2 = claudeFile(h, SESSION2);
    writeFileSync(
      f1,
      claudeLine({ uuid: "s1a", session: SESSION, text: "secret heron plan hunter2quokka", at: BASE_TIME }),
    );
    appendFileSync(
      f1,
      claudeLine({ uuid: "s1b", session: SESSION, text: "more heron detail", at: BASE_TIME + 1 }),
    );
    const title = (session: string, text: string) =>
      `${JSON.stringify({ type: "custom-title", customTitle: text, sessionId: session })}\n`;
    appendFileSync(f1, title(SESSION, "heron title secret"));
    writeFileSync(
      f2,
      claudeLine({ uuid: "s2a", session: SESSION2, text: "public heron note", at: BASE_TIME + 2 }),
    );
    const cwd = "/nonexistent/recall-test/other";
    const session3 = "7b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e";
    writeFileSync(
      claudeFile(h, session3),
      claudeLine({ uuid: "s3a", session: session3, text: "outer heron work", at: BASE_TIME + 3, cwd }) +
        title(session3, "other project title"),
    );
    h.index();
    expect(h.search("heron")).toHaveLength(4);
    const harness = h;
    const aliases = (session: string) =>
      harness.count(
        "SELECT count(*) FROM recall_session_aliases WHERE session = ? AND alias <> session",
        session,
      );
    expect([aliases(SESSION), aliases(session3)]).toEqual([1, 1]);

    const forgotAt = BASE_TIME + 10;
    const result = forget(h.store.db, { session: SESSION }, forgotAt);
    expect(result).toMatchObject({ documents: 2, records: 2, conversations: 1 });
    expect(result.rawChunks).toBeGreaterThan(0);
    expect(
      h
        .search("heron")
        .map((x) => x.session)
        .sort(),
    ).toEqual([SESSION2, session3].sort());
    expect(
      h.count("SELECT count(*) FROM recall_raw_chunks WHERE conversation = ?", `claude:${SESSION}`),
    ).toBe(0);
    expect(h.count("SELECT count(*) FROM recall_tombstones WHERE scope = 'session'")).toBeGreaterThan(0);
    // Gone from the disk too: no freed page, FTS5 segment or WAL frame still holds the text.
    for (const file of [h.store.db.name, `${h.store.db.name}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes("hunter2quokka"), file).toBe(false);
    }

    // A rescan (new process) and a full rebuild re-read the file: still forgotten.
    h.restart();
    h.clock.advance(60_000);
    h.index();
    resetDerived(h.store.db, ["claude-code"]);
    h.restart();
    h.index();
    expect(h.search("secret heron")).toHaveLength(0);
    expect(h.count("SELECT count(*) FROM recall_records WHERE conversation = ?", `claude:${SESSION}`)).toBe(
      0,
    );
    // Its title neither: the rebuild re-read the title line.
    expect(aliases(SESSION)).toBe(0);
    expect(
      h.count("SELECT count(*) FROM recall_raw_chunks WHERE conversation = ?", `claude:${SESSION}`),
    ).toBe(0);
    // What the session says after the forget is new history.
    appendFileSync(
      f1,
      claudeLine({ uuid: "s1c", session: SESSION, text: "later heron message", at: forgotAt + 1000 }),
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("later heron").map((x) => x.session)).toEqual([SESSION]);
    expect(h.search("secret heron")).toHaveLength(0);

    // A time range.
    forget(h.store.db, { since: BASE_TIME + 2, until: BASE_TIME + 2 }, forgotAt);
    expect(h.search("public heron")).toHaveLength(0);
    expect(h.search("outer heron")).toHaveLength(1);
    // A project (the normalised recorded cwd, since that folder does not exist here).
    forget(h.store.db, { project: cwd }, forgotAt);
    expect(h.search("outer heron")).toHaveLength(0);
    resetDerived(h.store.db, ["claude-code"]);
    h.restart();
    h.index();
    expect(h.search("public heron")).toHaveLength(0);
    expect(h.search("outer heron")).toHaveLength(0);
    expect(h.search("later heron")).toHaveLength(1);
    expect(aliases(session3)).toBe(0);
  });

  it("loses and duplicates nothing while lines are appended during indexing, across restarts", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(file, "");
    const expected: string[] = [];
    let pending = "";
    let n = 0;
    // Appends in uneven pieces (lines torn anywhere) between small ticks.
    for (let round = 0; round < 60; round++) {
      for (let k = 0; k < 7; k++) {
        const uuid = `append-${n}`;
        const role = n % 3 === 2 ? "assistant" : "user";
        pending += claudeLine({
          uuid,
          session: SESSION,
          role,
          text: `line ${n} capybara`,
          at: BASE_TIME + n,
        });
        expected.push(uuid);
        n += 1;
      }
      const cut = Math.floor(pending.length * ((round % 5) / 5 + 0.1));
      appendFileSync(file, pending.slice(0, cut));
      pending = pending.slice(cut);
      h.tick({ maxBytes: 700, maxRecords: 5 });
      if (round % 17 === 16) h.restart();
      h.clock.advance(31_000);
    }
    appendFileSync(file, pending);
    h.clock.advance(31_000);
    h.index();
    const keys = docs(h).map((d) => d.k);
    expect(keys.length).toBe(expected.length);
    expect(new Set(keys)).toEqual(new Set(expected));
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(expected.length);
    expect(exportBytes(h, `claude:${SESSION}`).equals(readFileSync(file))).toBe(true);
  });

  it("merges a response still streaming when a poll reaches the end of the file into one record", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    const part = (message: string, i: number) =>
      responseLine(`${message}${i}`, `otter ${message} part ${i}`, message, BASE_TIME + i);
    // Written just now (by the harness clock): the file may still grow.
    const touch = () => utimesSync(file, new Date(h!.clock.now()), new Date(h!.clock.now()));
    const records = (message: string) =>
      h!.store.db
        .prepare("SELECT record_key AS k, text FROM recall_records WHERE text LIKE ?")
        .all(`%otter ${message} part%`) as { k: string; text: string }[];
    const offset = () =>
      (
        h!.store.db.prepare("SELECT offset FROM recall_checkpoints WHERE source = 'claude-code'").get() as {
          offset: number;
        }
      ).offset;

    writeFileSync(
      file,
      claudeLine({ uuid: "q", session: SESSION, text: "question about otters" }) + part("x", 0),
    );
    touch();
    h.index();
    // The response so far is found at once.
    expect(records("x").map((r) => r.k)).toEqual(["x0"]);
    h.clock.advance(5_000);
    appendFileSync(file, part("x", 1));
    touch();
    h.clock.advance(31_000);
    h.index();
    expect(records("x")).toEqual([{ k: "x0", text: "otter x part 0\notter x part 1" }]);
    // Its lines stay held (a new process would read them again) until the file settles; then
    // it is looked at again, unchanged, and the response ends there.
    expect(offset()).toBeLessThan(readFileSync(file).length);
    h.clock.advance(120_000);
    h.index();
    expect(offset()).toBe(readFileSync(file).length);

    // A process that stops while a response is held: the next reads its lines again.
    appendFileSync(file, part("y", 0));
    touch();
    h.index();
    h.restart();
    h.clock.advance(5_000);
    appendFileSync(file, part("y", 1));
    touch();
    h.index();
    expect(records("y")).toEqual([{ k: "y0", text: "otter y part 0\notter y part 1" }]);
    expect(records("x")).toHaveLength(1);
    // "otters" also finds the answer's "otter" (word forms): the question is found once.
    expect(h.search("question otters")).toHaveLength(1);
  });

  it("a repeated line behind a response still streaming neither splits nor drops it", async () => {
    for (const restart of [false, true]) {
      h?.close();
      h = await createHarness();
      const file = claudeFile(h);
      const part = (i: number) => responseLine(`r${i}`, `otter part ${i}`, "x", BASE_TIME + i);
      const touch = () => utimesSync(file, new Date(h!.clock.now()), new Date(h!.clock.now()));
      // A copy of the response's first line (resumed sessions copy lines) follows it.
      writeFileSync(
        file,
        claudeLine({ uuid: "q", session: SESSION, text: "question" }) + part(0) + part(1) + part(0),
      );
      touch();
      h.index();
      if (restart) h.restart();
      h.clock.advance(1_000);
      appendFileSync(file, part(2));
      touch();
      h.index();
      h.clock.advance(120_000);
      h.restart();
      h.index();
      const otters = docs(h).filter((d) => d.body.includes("otter part"));
      expect(
        otters.map((d) => [d.k, d.body]),
        `restart ${restart}`,
      ).toEqual([["r0", "otter part 0\notter part 1\notter part 2"]]);
    }
  });

  it("a held response keeps what its file taught, dates all its lines' bytes, and settles a future mtime", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    const touch = (at = h!.clock.now()) => utimesSync(file, new Date(at), new Date(at));
    // A summary titles the conversation once its leaf turns up, after a restart while held.
    const summary = `${JSON.stringify({ type: "summary", summary: "Capybara migration plan", leafUuid: "leaf1" })}\n`;
    writeFileSync(
      file,
      summary +
        claudeLine({ uuid: "q", session: SESSION, text: "question", at: BASE_TIME }) +
        responseLine("r0", "secret part zero", "m", BASE_TIME + 1_000),
    );
    touch();
    h.index();
    h.restart();
    h.clock.advance(1_000);
    appendFileSync(
      file,
      responseLine("r1", "secret part one", "m", BASE_TIME + 2_000) +
        claudeLine({ uuid: "leaf1", session: SESSION, text: "the leaf", at: BASE_TIME + 3_000 }),
    );
    touch();
    h.index();
    const title = h.store.db
      .prepare("SELECT title FROM recall_conversations WHERE id = ?")
      .get(`claude:${SESSION}`);
    expect(title).toEqual({ title: "Capybara migration plan" });
    // Every chunk holding the response's lines has its time: forgetting that time erases them.
    h.clock.advance(61_000);
    h.index();
    forget(h.store.db, { since: BASE_TIME + 500, until: BASE_TIME + 2_500 }, h.clock.now());
    const raw = (
      h.store.db.prepare("SELECT data, codec FROM recall_raw_chunks").all() as {
        data: Buffer;
        codec: string;
      }[]
    )
      .map((r) => decompressRaw(r.data, r.codec).toString())
      .join("");
    expect(raw).not.toContain("secret part");

    // A file dated a year ahead (a wrong clock) is not held open for a year.
    const other = claudeFile(h, SESSION2);
    writeFileSync(other, responseLine("f0", "future part zero", "f", BASE_TIME));
    utimesSync(other, new Date(h.clock.now() + 365 * 86_400_000), new Date(h.clock.now() + 365 * 86_400_000));
    h.clock.advance(31_000); // the next discovery
    h.index();
    const offset = h.store.db
      .prepare("SELECT offset FROM recall_checkpoints WHERE source = 'claude-code' AND key LIKE ?")
      .get(`%${SESSION2}%`) as { offset: number };
    expect(offset.offset).toBe(readFileSync(other).length);
  });

  it("a file deleted while a response is held, its first lines pruned by retention, is not read twice", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    const touch = () => utimesSync(file, new Date(h!.clock.now()), new Date(h!.clock.now()));
    // Varied text, so brotli cannot shrink the chunks below the retention bound.
    const words = (i: number) =>
      Array.from({ length: 150 }, (_, k) => ((i * 7919 + k * 104729) % 1e6).toString(36)).join(" ");
    const part = (i: number) => responseLine(`r${i}`, `wapiti part ${i} ${words(i)}`, "m", BASE_TIME + i);
    writeFileSync(file, claudeLine({ uuid: "q", session: SESSION, text: "question" }) + part(0));
    touch();
    const retention = { rawMaxBytesPerSource: 2_500 };
    h.index(retention);
    for (let i = 1; i < 4; i++) {
      h.clock.advance(1_000);
      appendFileSync(file, part(i));
      touch();
      h.index(retention);
    }
    h.restart();
    rmSync(file);
    h.clock.advance(61_000);
    h.index(retention);
    expect(h.count("SELECT count(*) FROM recall_document_text WHERE body LIKE '%wapiti part 3%'")).toBe(1);
  });

  it("merges a streamed response split across batches, even across a restart", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(file, claudeLine({ uuid: "q", session: SESSION, text: "question about otters" }));
    for (let i = 0; i < 3; i++) {
      appendFileSync(file, responseLine(`r${i}`, `otter part ${i}`, "x", BASE_TIME + i));
    }
    appendFileSync(
      file,
      claudeLine({ uuid: "q2", session: SESSION, text: "next question", at: BASE_TIME + 9 }),
    );
    const lineBytes = readFileSync(file).length / 5;
    h.tick({ maxBytes: Math.floor(lineBytes * 2.5), maxRecords: 1000 });
    h.restart();
    h.index({ limits: { maxBytes: Math.floor(lineBytes * 1.5) } });
    const merged = docs(h).filter((d) => d.body.includes("otter part"));
    expect(merged).toHaveLength(1);
    expect(merged[0]!.k).toBe("r0");
    expect(merged[0]!.body).toContain("otter part 2");
    expect(docs(h).map((d) => d.k)).toEqual(["q", "r0", "q2"]);
  });

  it("a re-read removes what older readers wrote under a merged message's other lines", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(
      file,
      claudeLine({ uuid: "q", session: SESSION, text: "question about otters", at: BASE_TIME }) +
        responseLine("r0", "otter part zero", "x", BASE_TIME + 1) +
        responseLine("r1", "otter part one", "x", BASE_TIME + 2),
    );
    const rollout = codexRollout(h, "06");
    const head = codexMeta(THREAD) + codexTurnContext();
    writeFileSync(rollout, head + codexUserTurn(THREAD, "first kestrel question", BASE_TIME, "u0"));
    h.index();
    // What readers before the fixes left: the response's second line and the prompt's
    // response_item copy as records (and documents) of their own.
    const db = h.store.db;
    const legacy = [
      { conversation: `claude:${SESSION}`, source: "claude-code", key: "r1", text: "otter part one" },
      {
        conversation: `codex:${THREAD}`,
        source: "codex",
        key: `${THREAD}:${Buffer.byteLength(head)}`,
        text: "first kestrel question",
      },
    ];
    for (const [i, l] of legacy.entries()) {
      db.prepare(
        `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text)
         VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), ?, ?, ?, 'assistant', 'transcript', ?, ?)`,
      ).run(l.conversation, 100 + i, l.key, BASE_TIME, `legacy:${i}`, l.text);
      db.prepare(
        `INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, conversation, role, body,
           projection_version) VALUES (?, ?, ?, 'transcript', 'x', ?, ?, 'assistant', ?, 1)`,
      ).run(l.source, l.key, `legacy:${i}`, BASE_TIME, l.conversation, l.text);
    }
    expect(h.search("otter one")).toHaveLength(2);
    expect(h.search("kestrel")).toHaveLength(2);
    const records = () => h!.count("SELECT count(*) FROM recall_records");
    expect(records()).toBe(5);
    // Re-read from the start, documents kept (their FTS rows go with them) …
    resetCursors(db, ["claude-code", "codex"]);
    h.restart();
    h.index();
    expect(records()).toBe(3);
    expect(h.search("otter one")).toHaveLength(1);
    expect(h.search("kestrel")).toHaveLength(1);
    expect(h.count("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH 'kestrel OR otter'")).toBe(2);
    // … and in a rebuild.
    for (const [i, l] of legacy.entries()) {
      db.prepare(
        `INSERT INTO recall_record_rows (conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text)
         VALUES ((SELECT ref FROM recall_conversations WHERE id = ?), ?, ?, ?, 'assistant', 'transcript', ?, ?)`,
      ).run(l.conversation, 200 + i, l.key, BASE_TIME, `legacy:${i}`, l.text);
    }
    resetDerived(db, ["claude-code", "codex"]);
    h.restart();
    h.index();
    expect(records()).toBe(3);
    expect(h.search("otter one")).toHaveLength(1);
  });

  it("keys a Codex prompt read apart from its event twin as one read keys it, so a rebuild adds no copy", async () => {
    h = await createHarness();
    const file = codexRollout(h, "05");
    const touch = () => utimesSync(file, new Date(h!.clock.now()), new Date(h!.clock.now()));
    const [item, event] = codexUserTurn(THREAD, "first kestrel question", BASE_TIME, "u0").split(/(?<=\n)/);
    // A poll lands between the prompt's response_item line and its event twin, still being written.
    writeFileSync(file, codexMeta(THREAD) + codexTurnContext() + item);
    touch();
    h.index();
    h.clock.advance(1_000);
    appendFileSync(file, event! + codexAgentTurn(THREAD, "kestrel answer", BASE_TIME + 5, "a0"));
    touch();
    h.index();
    h.clock.advance(61_000);
    h.index();
    const keys = () =>
      (
        h!.store.db
          .prepare("SELECT record_key FROM recall_records WHERE conversation = ? ORDER BY record_key")
          .all(`codex:${THREAD}`) as { record_key: string }[]
      ).map((r) => r.record_key);
    const live = keys();
    expect(live).toHaveLength(2);
    expect(h.search("kestrel")).toHaveLength(2);
    // A rebuild reads the file in one go: the same keys, so no record is left over as a copy.
    resetDerived(h.store.db, ["codex"]);
    h.restart();
    h.index();
    expect(keys()).toEqual(live);
    expect(h.search("kestrel")).toHaveLength(2);
  });

  it("a Codex message held for its event twin is released after a restart, and after the file's deletion", async () => {
    const heldRollout = (harness: Harness, thread: string) => {
      const file = codexRollout(harness, "07", thread);
      const [item] = codexUserTurn(thread, `lonely heron ${thread}`, BASE_TIME, "u0").split(/(?<=\n)/);
      writeFileSync(file, codexMeta(thread) + codexTurnContext() + item);
      const at = new Date(harness.clock.now());
      utimesSync(file, at, at); // written just now: it may still get its twin
      return file;
    };
    const found = (thread: string) => h!.search(`heron ${thread.replace(/-/g, " ")}`).length;
    // A new process (a one-shot `recall index`) looks at it again once it settles.
    h = await createHarness();
    heldRollout(h, THREAD);
    h.index();
    expect(found(THREAD)).toBe(0);
    h.restart();
    h.clock.advance(61_000);
    h.index();
    expect(found(THREAD)).toBe(1);
    h.close();

    // Deleted while held: the retained bytes' parser drains it; with none retained, the snapshot's.
    for (const retention of [null, 1]) {
      h = await createHarness();
      const file = heldRollout(h, THREAD);
      h.index({ rawMaxBytesPerSource: retention });
      rmSync(file);
      h.clock.advance(61_000);
      h.index({ rawMaxBytesPerSource: retention });
      expect(found(THREAD), `retention ${retention}`).toBe(1);
      if (retention === 1) expect(h.count("SELECT count(*) FROM recall_raw_chunks")).toBe(0);
      h.close();
    }
    h = null;
  });

  it("a merged response whose first line another conversation keeps leaves its later lines' documents", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-nonexistent-recall-test-proj");
    mkdirSync(dir, { recursive: true });
    const line = (uuid: string, session: string, text: string, at: number, response?: string) =>
      claudeLine({
        uuid,
        session,
        text,
        at,
        ...(response
          ? { role: "assistant" as const, messageId: `msg_${response}`, requestId: `req_${response}` }
          : {}),
      });
    // SESSION holds a copy of the response's first line only (a fork taken while it streamed).
    writeFileSync(
      path.join(dir, `${SESSION}.jsonl`),
      line("q", SESSION, "question about otters", BASE_TIME) +
        line("r0", SESSION, "otter part zero", BASE_TIME + 1, "x"),
    );
    h.index();
    const other = path.join(dir, `${SESSION2}.jsonl`);
    const old = new Date(BASE_TIME);
    writeFileSync(
      other,
      line("q", SESSION2, "question about otters", BASE_TIME) +
        line("r0", SESSION2, "otter part zero", BASE_TIME + 1, "x"),
    );
    utimesSync(other, old, old);
    h.clock.advance(31_000);
    h.index();
    appendFileSync(other, line("r1", SESSION2, "otter part one gannet", BASE_TIME + 2, "x"));
    utimesSync(other, old, old);
    h.index();
    expect(h.search("gannet")).toHaveLength(1);
    resetCursors(h.store.db, ["claude-code"]);
    h.restart();
    h.index();
    expect(h.search("gannet")).toHaveLength(1);
  });

  it("indexes a Codex .jsonl.zst beside its .jsonl twin once, and follows it when the plain file goes", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "01");
    mkdirSync(dir, { recursive: true });
    const plain = path.join(dir, `rollout-2026-06-01T09-00-00-${THREAD}.jsonl`);
    let content = codexMeta(THREAD) + codexTurnContext();
    for (let i = 0; i < 40; i++) {
      content += codexUserTurn(THREAD, `question ${i} about lemurs`, BASE_TIME + i * 10, `u${i}`);
      content += codexAgentTurn(THREAD, `answer ${i} about lemurs`, BASE_TIME + i * 10 + 5, `a${i}`);
    }
    writeFileSync(plain, content);
    writeFileSync(`${plain}.zst`, zstd(Buffer.from(content)));
    h.index();
    expect(h.search("lemurs", {}, 200)).toHaveLength(80);
    expect(h.count("SELECT count(*) FROM recall_conversations WHERE source = 'codex'")).toBe(1);
    const first = docs(h);

    // The compressor deletes the plain file: the compressed twin continues, nothing new.
    rmSync(plain);
    h.clock.advance(60_000);
    h.index();
    expect(docs(h)).toEqual(first);
    // More lines appear in the compressed file (Codex resumed and recompressed).
    const more = content + codexUserTurn(THREAD, "late lemur question", BASE_TIME + 9999, "late");
    writeFileSync(`${plain}.zst`, zstd(Buffer.from(more)));
    h.clock.advance(60_000);
    h.index();
    // "lemurs" also finds the late "lemur" (word forms); nothing is doubled.
    expect(h.search("lemurs", {}, 200)).toHaveLength(81);
    expect(h.search("late lemur")).toHaveLength(1);
    // Archived: moved into archived_sessions/.
    const archived = path.join(h.home, ".codex", "archived_sessions");
    mkdirSync(archived, { recursive: true });
    renameSync(`${plain}.zst`, path.join(archived, path.basename(`${plain}.zst`)));
    h.restart();
    h.clock.advance(60_000);
    h.index();
    expect(docs(h)).toHaveLength(81);
    expect(exportBytes(h, `codex:${THREAD}`).equals(Buffer.from(more))).toBe(true);
  });

  it("a corrupt .jsonl.zst is counted malformed once and stops no other file", async () => {
    h = await createHarness();
    const project = path.join(claudeProjects(h.home), "-p");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      path.join(project, `${SESSION}.jsonl`),
      claudeLine({ uuid: "c1", session: SESSION, text: "wombat note" }),
    );
    const dir = path.join(codexSessions(h.home), "2026", "06", "03");
    mkdirSync(dir, { recursive: true });
    const thread = "019a0000-3333-7333-8444-555566667777";
    writeFileSync(path.join(dir, `rollout-2026-06-03T09-00-00-${thread}.jsonl.zst`), "garbage\n");
    h.index();
    expect(h.search("wombat")).toHaveLength(1);
    expect(h.malformed("codex")).toBe(1);
    h.clock.advance(60_000);
    h.index();
    expect(h.malformed("codex")).toBe(1);
  });

  it("a file whose reads fail is tried again unchanged, with a backoff, until it reads", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(file, claudeLine({ uuid: "e1", session: SESSION, text: "echidna burrow" }));
    const faults = failReads(file, 2);
    try {
      h.index();
      expect(faults.failed()).toBe(1);
      expect(h.search("echidna")).toHaveLength(0);
      // A read that fails is unreadable, not malformed (its bytes were never seen).
      expect(h.malformed("claude-code")).toBe(0);
      expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.unreadable).toBe(1);
      // Not before the first backoff, then once per backoff (5 s, then 10 s), the file unchanged.
      h.clock.advance(IO_RETRY_FIRST_MS - 1);
      h.index();
      expect(faults.failed()).toBe(1);
      h.clock.advance(1);
      h.index();
      expect(faults.failed()).toBe(2);
      h.clock.advance(IO_RETRY_FIRST_MS);
      h.index();
      expect(faults.failed()).toBe(2);
      h.clock.advance(IO_RETRY_FIRST_MS);
      h.index();
    } finally {
      faults.restore();
    }
    expect(h.search("echidna")).toHaveLength(1);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.unreadable).toBe(1);
  });

  it("a file that cannot be opened ends the backfill, counted once, and is read once it can be", async () => {
    h = await createHarness();
    const file = claudeFile(h);
    writeFileSync(file, claudeLine({ uuid: "o1", session: SESSION, text: "okapi forest" }));
    const faults = failOpens(file);
    let ticks = 0;
    try {
      backfill(h.store.db, h.sources, {
        projectionVersion: PROJECTION_VERSION,
        clock: h.clock,
        shouldStop: () => ++ticks > 500,
      });
      expect(ticks, "the backfill ended by itself").toBeLessThan(500);
      expect(faults.failed()).toBeGreaterThan(0);
      expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.unreadable).toBe(1);
      expect(h.malformed("claude-code")).toBe(0);
    } finally {
      faults.restore();
    }
    h.clock.advance(IO_RETRY_FIRST_MS);
    h.index();
    expect(h.search("okapi")).toHaveLength(1);
  });

  it("a file whose parser throws is rewound, counted malformed, and stops no other file", async () => {
    h = await createHarness();
    const root = path.join(h.home, "odd-cli");
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, "good.jsonl"), "fine\n");
    writeFileSync(path.join(root, "bad.jsonl"), "fine\nboom\n");
    const odd = new JsonlFileSource({
      name: "odd",
      agent: "claude",
      roots: () => [root],
      rule: ({ depth, isFile, name }) => (depth === 0 && isFile && name.endsWith(".jsonl") ? "file" : "skip"),
      identify: (file) => ({ key: path.basename(file), priority: 0 }),
      createParser: (context) => ({
        conversationId: `odd:${context.key}`,
        line(line, sink) {
          if (line.text.includes("boom")) throw new Error("unexpected shape");
          sink.skipped();
        },
        drain() {},
        heldFrom: () => null,
        snapshot: () => null,
      }),
    });
    h.sources.push(odd);
    h.index();
    const checkpoints = h.store.db
      .prepare("SELECT key FROM recall_checkpoints WHERE source = 'odd' ORDER BY key")
      .pluck()
      .all();
    expect(checkpoints).toEqual(["good.jsonl"]);
    expect(h.count("SELECT count(*) FROM recall_raw_chunks WHERE source = 'odd'")).toBe(1);
    expect(h.malformed("odd")).toBe(1);
  });

  it("a .jsonl.zst cut short while written gives what decodes, and the rest once it is whole", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "04");
    mkdirSync(dir, { recursive: true });
    const thread = "019a0000-4444-7333-8444-555566667777";
    let content = codexMeta(thread) + codexTurnContext();
    // Varied text, so the compressed file holds several blocks and half of it decodes to some.
    for (let i = 0; i < 1000; i++)
      content += codexUserTurn(
        thread,
        `quokka fact ${i} ${sha256(Buffer.from(String(i))).repeat(6)}`,
        BASE_TIME + i,
        `q${i}`,
      );
    const file = path.join(dir, `rollout-2026-06-04T09-00-00-${thread}.jsonl.zst`);
    const whole = zstd(Buffer.from(content));
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2)));
    h.index();
    const early = docs(h).length;
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(1000);
    writeFileSync(file, whole);
    h.clock.advance(60_000);
    h.index();
    const keys = docs(h).map((d) => d.k);
    expect(keys).toHaveLength(1000);
    expect(new Set(keys).size).toBe(1000);
    expect(exportBytes(h, `codex:${thread}`).equals(Buffer.from(content))).toBe(true);
  });

  it("a compressed-only Codex rollout is read through the decoder, and a restart resumes mid-file", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "02");
    mkdirSync(dir, { recursive: true });
    const thread = "019a0000-2222-7333-8444-555566667777";
    let content = codexMeta(thread) + codexTurnContext();
    for (let i = 0; i < 300; i++)
      content += codexUserTurn(thread, `zebra fact ${i} ${"x".repeat(300)}`, BASE_TIME + i, `z${i}`);
    writeFileSync(
      path.join(dir, `rollout-2026-06-02T09-00-00-${thread}.jsonl.zst`),
      zstd(Buffer.from(content)),
    );
    h.tick({ maxBytes: 64 * 1024 });
    h.tick({ maxBytes: 64 * 1024 });
    h.restart();
    h.index({ limits: { maxBytes: 64 * 1024 } });
    const keys = docs(h).map((d) => d.k);
    expect(keys).toHaveLength(300);
    expect(new Set(keys).size).toBe(300);
    expect(h.search("zebra fact 299")).toHaveLength(1);
  });
});

describe("retention bound", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("prunes the oldest raw chunks of a source past its bound, counts them, and keeps records and documents", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    for (let s = 0; s < 4; s++) {
      const session = `0000000${s}-0000-4000-8000-000000000000`;
      let text = "";
      for (let i = 0; i < 200; i++) {
        text += claudeLine({
          uuid: `${s}-${i}`,
          session,
          text: `raccoon ${s} ${i} ${Array.from({ length: 8 }, (_, k) => createHash("sha1").update(`${s}.${i}.${k}`).digest("hex")).join(" ")}`,
          at: BASE_TIME + s * 1000 + i,
        });
      }
      writeFileSync(path.join(dir, `${session}.jsonl`), text);
    }
    h.index({ rawMaxBytesPerSource: 20_000 });
    const [claude] = sourceCoverage(h.store.db, ["claude-code"]);
    expect(claude!.raw.stored).toBeLessThanOrEqual(20_000);
    expect(claude!.raw.prunedChunks).toBeGreaterThan(0);
    expect(
      h.count("SELECT coalesce(sum(stored), 0) FROM recall_raw_chunks WHERE source = 'claude-code'"),
    ).toBe(claude!.raw.stored);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(800);
    expect(h.search("raccoon", {}, 50)).toHaveLength(50);
    expect(claude!.documents).toBe(800);
  });
});
