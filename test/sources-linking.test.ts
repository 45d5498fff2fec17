/**
 * Per-tick bounds (32 entries, 2 files, 32 opencode session rows), discovery every 30 s, fair
 * polling, and how records link up: Claude copies deduped by uuid across files, subagents in
 * both Claude layouts and in Codex linked to their parents, session aliases.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpencodeV2Db } from "./helpers/opencode-db.js";
import { sessionsForAlias } from "../src/search/session-aliases.js";
import { indexView } from "../src/indexer/checkpoints.js";
import { createClaudeSource } from "../src/sources/claude-code/source.js";
import { createOpencodeSource } from "../src/sources/opencode/source.js";
import type { Budget } from "../src/sources/types.js";
import {
  claudeProjects,
  codexSessions,
  createHarness,
  opencodeData,
  type Harness,
} from "./sources-harness.js";
import {
  BASE_TIME,
  claudeLine,
  codexMeta,
  codexTurnContext,
  codexUserTurn,
  hugeClaudeLine,
  iso,
} from "./sources-lines.js";

const budget = (over: Partial<Budget> = {}): Budget => ({
  maxRecords: 1000,
  maxBytes: 1 << 20,
  maxEntries: 32,
  maxSessionRows: 32,
  maxFiles: 2,
  now: BASE_TIME,
  expired: () => false,
  ...over,
});

/** A Claude Code project folder in the harness HOME, created. */
function projectDir(h: Harness): string {
  const dir = path.join(claudeProjects(h.home), "-p");
  mkdirSync(dir, { recursive: true });
  return dir;
}

const uuidOf = (i: number) => `${String(i).padStart(8, "0")}-0000-4000-8000-000000000000`;

describe("per-tick bounds and cadence", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("walks at most 32 entries and reads at most 2 files per tick, fairly, and rediscovers after 30 s", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    for (let i = 0; i < 40; i++) {
      writeFileSync(
        path.join(dir, `${uuidOf(i)}.jsonl`),
        claudeLine({ uuid: `f${i}`, session: uuidOf(i), text: `file ${i} beaver` }),
      );
    }
    const source = createClaudeSource(h.env);
    const view = indexView(h.store.db);
    // Tick 1: the walk enters projects/ and -p/ and registers at most 30 files (32 entries).
    const first = source.nextBatch(view, budget());
    expect(first.progress!.filesKnown).toBeLessThanOrEqual(32);
    expect(new Set(first.records.map((r) => r.conversation.id)).size).toBeLessThanOrEqual(2);
    expect(first.idle).toBe(false);
    // Without committing, every tick still reads at most 2 files, each a different one.
    const seen = new Set<string>();
    for (let t = 0; t < 30; t++) {
      const batch = source.nextBatch(view, budget({ now: BASE_TIME + t }));
      const files = new Set(batch.records.map((r) => r.conversation.id));
      expect(files.size).toBeLessThanOrEqual(2);
      for (const f of files) seen.add(f);
    }
    expect(seen.size).toBe(40 - new Set(first.records.map((r) => r.conversation.id)).size);
    source.close();

    // Through the indexer: a file added after the sweep is found only once 30 s have passed.
    h.index();
    expect(h.search("beaver", {}, 50)).toHaveLength(40);
    writeFileSync(
      path.join(dir, `${uuidOf(99)}.jsonl`),
      claudeLine({ uuid: "late", session: uuidOf(99), text: "late beaver" }),
    );
    h.clock.advance(10_000);
    h.tick();
    h.tick();
    expect(h.search("late beaver")).toHaveLength(0);
    h.clock.advance(21_000);
    h.index();
    expect(h.search("late beaver")).toHaveLength(1);
    // An append to a known file is picked up by the polling sweep, without rediscovery.
    appendFileSync(
      path.join(dir, `${uuidOf(3)}.jsonl`),
      claudeLine({ uuid: "more", session: uuidOf(3), text: "appended beaver" }),
    );
    h.index();
    expect(h.search("appended beaver")).toHaveLength(1);
  });

  it("reads more large files in turn than it keeps parsers for, losing and duplicating nothing", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    let expected = 0;
    for (let f = 0; f < 24; f++) {
      const session = uuidOf(100 + f);
      let text = "";
      for (let i = 0; i < 60; i++) {
        text += claudeLine({
          uuid: `${f}-q${i}`,
          session,
          text: `file ${f} question ${i} heron`,
          at: BASE_TIME + i * 10,
        });
        // A response streamed over two lines (merged into one record).
        for (const part of [0, 1]) {
          text += claudeLine({
            uuid: `${f}-a${i}-${part}`,
            session,
            role: "assistant",
            text: `file ${f} answer ${i} part ${part}`,
            messageId: `m${f}-${i}`,
            requestId: `r${f}-${i}`,
            at: BASE_TIME + i * 10 + part,
          });
        }
        expected += 2;
      }
      writeFileSync(path.join(dir, `${session}.jsonl`), text);
    }
    h.index({ limits: { maxBytes: 8 * 1024 } });
    expect(h.count("SELECT count(*) FROM recall_documents")).toBe(expected);
    expect(h.count("SELECT count(*) FROM recall_records")).toBe(expected);
    expect(h.count("SELECT count(*) FROM recall_document_text WHERE body LIKE '%part 0%part 1%'")).toBe(
      expected / 2,
    );
  });

  it("reads at most 32 opencode session rows per tick", async () => {
    h = await createHarness();
    const file = path.join(opencodeData(h.home), "opencode.db");
    const db = createOpencodeV2Db(file);
    for (let i = 0; i < 80; i++) {
      const id = `ses_${String(i).padStart(4, "0")}`;
      db.prepare(
        "INSERT INTO session_v2 (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'p', 's', '/x', ?, '2', ?, ?)",
      ).run(id, `Session ${i}`, BASE_TIME + i, BASE_TIME + i);
      db.prepare(
        "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, 'user', 1, ?, ?, ?)",
      ).run(
        `msg_${i}`,
        id,
        BASE_TIME + i,
        BASE_TIME + i,
        JSON.stringify({ text: `tapir ${i}`, time: { created: BASE_TIME + i } }),
      );
    }
    db.close();
    const source = createOpencodeSource(h.env);
    const view = indexView(h.store.db);
    const batch = source.nextBatch(view, budget());
    expect(batch.conversations.length).toBeLessThanOrEqual(32);
    expect(batch.records.length).toBeLessThanOrEqual(32);
    source.close();
    h.index();
    expect(h.search("tapir", {}, 50)).toHaveLength(50);
    expect(h.count("SELECT count(*) FROM recall_documents")).toBe(80);
    expect(sessionsForAlias(h.store.db, "Session 7")).toEqual(["Session 7", "ses_0007"]);
  });
});

describe("linking and dedupe", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("Claude: lines copied into a resumed session are one document, retained in both conversations", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    const a = uuidOf(1);
    const b = uuidOf(2);
    writeFileSync(
      path.join(dir, `${a}.jsonl`),
      claudeLine({ uuid: "x1", session: a, text: "original walrus idea" }),
    );
    writeFileSync(
      path.join(dir, `${b}.jsonl`),
      claudeLine({ uuid: "x1", session: a, text: "original walrus idea" }) +
        claudeLine({ uuid: "x2", session: b, text: "resumed walrus work", at: BASE_TIME + 5 }),
    );
    h.index();
    expect(h.search("original walrus")).toHaveLength(1);
    expect(h.search("resumed walrus")).toHaveLength(1);
    expect(h.count("SELECT count(*) FROM recall_records WHERE record_key = 'x1'")).toBe(2);
  });

  it("Claude: a summary line titles the conversation holding its leaf, not the file it is written in", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    const a = uuidOf(11);
    const b = uuidOf(12);
    const summary = (title: string, leaf: string) =>
      `${JSON.stringify({ type: "summary", summary: title, leafUuid: leaf })}\n`;
    writeFileSync(
      path.join(dir, `${a}.jsonl`),
      claudeLine({ uuid: "a1", session: a, text: "plan the heron migration" }) +
        claudeLine({ uuid: "a2", session: a, role: "assistant", text: "heron migration planned" }),
    );
    h.index();
    // Claude Code writes the summaries of other sessions at the top of a new session's file.
    const fileB = path.join(dir, `${b}.jsonl`);
    writeFileSync(
      fileB,
      summary("Heron migration plan", "a2") +
        summary("Puffin cache fix", "b2") +
        summary("Unseen session title", "elsewhere") +
        claudeLine({ uuid: "b1", session: b, text: "fix the puffin cache", at: BASE_TIME + 10 }),
    );
    h.clock.advance(31_000); // past the rediscovery interval
    h.index();
    // b2 has not been seen yet: no title for B, and the claim survives a restart (checkpointed).
    const titleOf = (id: string) =>
      (
        h!.store.db.prepare("SELECT title FROM recall_conversations WHERE id = ?").get(id) as
          { title: string | null } | undefined
      )?.title;
    expect(titleOf(`claude:${b}`)).toBeNull();
    h.restart();
    appendFileSync(
      fileB,
      claudeLine({
        uuid: "b2",
        session: b,
        role: "assistant",
        text: "puffin cache fixed",
        at: BASE_TIME + 11,
      }),
    );
    h.index();
    expect(titleOf(`claude:${a}`)).toBe("Heron migration plan");
    expect(titleOf(`claude:${b}`)).toBe("Puffin cache fix");
    expect(sessionsForAlias(h.store.db, "Heron migration plan")).toEqual(["Heron migration plan", a]);
    expect(sessionsForAlias(h.store.db, "Puffin cache fix")).toEqual(["Puffin cache fix", b]);
    expect(sessionsForAlias(h.store.db, "Unseen session title")).toEqual(["Unseen session title"]);
    // A title a session's own file gives is never replaced by a summary found elsewhere.
    writeFileSync(
      path.join(dir, `${uuidOf(13)}.jsonl`),
      summary("Stale puffin summary", "b2") +
        claudeLine({ uuid: "c1", session: uuidOf(13), text: "unrelated gannet work", at: BASE_TIME + 20 }),
    );
    h.clock.advance(31_000);
    h.index();
    expect(titleOf(`claude:${b}`)).toBe("Puffin cache fix");
    expect(titleOf(`claude:${uuidOf(13)}`)).toBeNull();
  });

  it("Claude: a title the person chose outlasts generated ones written after it, across a restart", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    const s = uuidOf(14);
    const file = path.join(dir, `${s}.jsonl`);
    const titleLine = (type: "custom-title" | "ai-title", title: string) =>
      `${JSON.stringify({ type, sessionId: s, [type === "custom-title" ? "customTitle" : "aiTitle"]: title })}\n`;
    writeFileSync(
      file,
      claudeLine({ uuid: "t1", session: s, text: "tune the osprey cache" }) +
        titleLine("ai-title", "Osprey cache tuning") +
        titleLine("custom-title", "My osprey notes"),
    );
    h.index();
    const titleOf = () =>
      (
        h!.store.db.prepare("SELECT title FROM recall_conversations WHERE id = ?").get(`claude:${s}`) as {
          title: string | null;
        }
      ).title;
    expect(titleOf()).toBe("My osprey notes");
    h.restart();
    appendFileSync(file, titleLine("ai-title", "Osprey cache follow-up"));
    h.index();
    expect(titleOf()).toBe("My osprey notes");
    // Every title still finds the session; a new chosen title replaces the old one.
    expect(sessionsForAlias(h.store.db, "Osprey cache follow-up")).toEqual(["Osprey cache follow-up", s]);
    appendFileSync(file, titleLine("custom-title", "Osprey, final"));
    h.index();
    expect(titleOf()).toBe("Osprey, final");
    // Renamed twice in one batch, with a turn between: the later name wins over the ref the
    // turn carried.
    appendFileSync(
      file,
      titleLine("custom-title", "Osprey, again") +
        claudeLine({ uuid: "t2", session: s, text: "more osprey tuning", at: BASE_TIME + 5 }) +
        titleLine("custom-title", "Osprey, last"),
    );
    h.index();
    expect(titleOf()).toBe("Osprey, last");
  });

  it("Claude: a file read in pieces, with restarts between, keeps its title and first project on every document", async () => {
    h = await createHarness();
    const dir = projectDir(h);
    const s = uuidOf(15);
    const file = path.join(dir, `${s}.jsonl`);
    const lines = [
      claudeLine({ uuid: "p0", session: s, text: "plan the grebe survey", cwd: "/nonexistent/grebe" }),
      `${JSON.stringify({ type: "custom-title", sessionId: s, customTitle: "Grebe survey" })}\n`,
    ];
    // About 10 KB a turn: a tick reads its 64 KiB share and stops with an assistant turn held,
    // so each restart resumes before the read end, where the parser's own state is not reused.
    const pad = "wader ".repeat(1700);
    for (let i = 1; i <= 12; i++) {
      const cwd = "/nonexistent/grebe/sub";
      lines.push(
        claudeLine({
          uuid: `u${i}`,
          session: s,
          text: `grebe count ${i} ${pad}`,
          at: BASE_TIME + 2 * i,
          cwd,
        }),
        claudeLine({
          uuid: `a${i}`,
          session: s,
          role: "assistant",
          text: `grebe tally ${i} ${pad}`,
          at: BASE_TIME + 2 * i + 1,
          cwd,
        }),
      );
    }
    writeFileSync(file, lines.join(""));
    for (let i = 0; i < 6; i++) {
      h.tick({ maxBytes: 1 });
      h.restart();
    }
    h.index();
    const docs = h.store.db
      .prepare("SELECT title, project FROM recall_documents WHERE conversation = ?")
      .all(`claude:${s}`) as { title: string; project: string }[];
    expect(docs).toHaveLength(25);
    // Every document after the title line carries it (the one before was written untitled).
    expect(docs.filter((d) => d.title === "Grebe survey")).toHaveLength(24);
    expect(new Set(docs.map((d) => d.project))).toEqual(new Set(["/nonexistent/grebe"]));
  });

  it("Claude: subagents in the flat pre-2.1.2 layout and the subagents/ layout link to their session", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    const parent = uuidOf(7);
    mkdirSync(path.join(dir, parent, "subagents"), { recursive: true });
    writeFileSync(
      path.join(dir, `${parent}.jsonl`),
      claudeLine({ uuid: "p1", session: parent, text: "delegate the ocelot survey" }),
    );
    writeFileSync(
      path.join(dir, "agent-flat1.jsonl"),
      claudeLine({ uuid: "f1", session: parent, text: "flat ocelot subagent" }),
    );
    // Its first line (a long Task prompt) is longer than the 64 KiB head read for the session.
    writeFileSync(
      path.join(dir, "agent-flat2.jsonl"),
      hugeClaudeLine(parent, "g1", 80_000, "long ocelot prompt"),
    );
    writeFileSync(
      path.join(dir, parent, "subagents", "agent-nest1.jsonl"),
      claudeLine({ uuid: "n1", session: parent, text: "nested ocelot subagent" }),
    );
    writeFileSync(
      path.join(dir, parent, "subagents", "agent-nest1.meta.json"),
      JSON.stringify({ agentType: "Explore", description: "survey" }),
    );
    mkdirSync(path.join(dir, parent, "tool-results"), { recursive: true });
    writeFileSync(path.join(dir, parent, "tool-results", "toolu_1.txt"), "ocelot tool output never indexed");
    h.index();
    const rows = h.store.db
      .prepare("SELECT id, parent, session, title FROM recall_conversations ORDER BY id")
      .all() as { id: string; parent: string | null; session: string; title: string | null }[];
    expect(rows).toEqual([
      { id: `claude:${parent}`, parent: null, session: parent, title: null },
      { id: `claude:${parent}/agent-flat1`, parent: `claude:${parent}`, session: parent, title: null },
      { id: `claude:${parent}/agent-flat2`, parent: `claude:${parent}`, session: parent, title: null },
      {
        id: `claude:${parent}/agent-nest1`,
        parent: `claude:${parent}`,
        session: parent,
        title: "Explore: survey",
      },
    ]);
    expect(h.search("ocelot", { sessions: [parent] })).toHaveLength(4);
    expect(h.search("tool output")).toHaveLength(0);
  });

  it("Codex: a spawned subagent rollout links to its parent thread; thread names are aliases", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "01");
    mkdirSync(dir, { recursive: true });
    const parent = "019a0000-4444-7555-8666-777788889999";
    const child = "019a0000-5555-7666-8777-88889999aaaa";
    writeFileSync(
      path.join(dir, `rollout-2026-06-01T10-00-00-${parent}.jsonl`),
      codexMeta(parent) +
        codexTurnContext() +
        codexUserTurn(parent, "spawn a helper for the ibis audit", BASE_TIME, "u1") +
        `${JSON.stringify({ timestamp: iso(BASE_TIME + 1), type: "event_msg", payload: { type: "thread_name_updated", thread_name: "Ibis audit" } })}\n`,
    );
    const childMeta = {
      timestamp: iso(BASE_TIME + 2),
      type: "session_meta",
      payload: {
        id: child,
        session_id: parent,
        timestamp: iso(BASE_TIME + 2),
        cwd: "/nonexistent/recall-test/codex",
        source: {
          subagent: { thread_spawn: { parent_thread_id: parent, depth: 1, agent_nickname: "helper" } },
        },
      },
    };
    // A child starts by replaying its parent's session_meta; its own is the one matching the file name.
    writeFileSync(
      path.join(dir, `rollout-2026-06-01T10-00-02-${child}.jsonl`),
      codexMeta(parent) +
        `${JSON.stringify(childMeta)}\n` +
        codexTurnContext() +
        codexUserTurn(child, "helper ibis findings", BASE_TIME + 3, "c1"),
    );
    h.index();
    const row = h.store.db
      .prepare("SELECT parent, session FROM recall_conversations WHERE id = ?")
      .get(`codex:${child}`);
    expect(row).toEqual({ parent: `codex:${parent}`, session: child });
    expect(h.search("helper ibis findings")[0]?.session).toBe(child);
    expect(sessionsForAlias(h.store.db, parent)).toEqual([parent, child]);
    expect(sessionsForAlias(h.store.db, "Ibis audit")).toEqual(["Ibis audit", parent]);
    const title = h.store.db
      .prepare("SELECT title FROM recall_conversations WHERE id = ?")
      .get(`codex:${parent}`);
    expect(title).toEqual({ title: "Ibis audit" });
  });

  it("Codex: a /review or compaction thread links to the root thread its session_id names", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "02");
    mkdirSync(dir, { recursive: true });
    const root = "019a0000-6666-7777-8888-9999aaaabbbb";
    const review = "019a0000-7777-7888-8999-aaaabbbbcccc";
    writeFileSync(
      path.join(dir, `rollout-2026-06-02T10-00-00-${root}.jsonl`),
      codexMeta(root) + codexTurnContext() + codexUserTurn(root, "review the egret patch", BASE_TIME, "u1"),
    );
    const meta = (source: unknown) => ({
      timestamp: iso(BASE_TIME + 2),
      type: "session_meta",
      payload: { id: review, session_id: root, cwd: "/nonexistent/recall-test/codex", source },
    });
    writeFileSync(
      path.join(dir, `rollout-2026-06-02T10-00-02-${review}.jsonl`),
      `${JSON.stringify(meta({ subagent: "review" }))}\n` +
        codexTurnContext() +
        codexUserTurn(review, "egret review findings", BASE_TIME + 3, "r1"),
    );
    h.index();
    const parentOf = (id: string) =>
      h!.store.db.prepare("SELECT parent FROM recall_conversations WHERE id = ?").get(`codex:${id}`);
    expect(parentOf(review)).toEqual({ parent: `codex:${root}` });
    expect(parentOf(root)).toEqual({ parent: null });
  });
});
