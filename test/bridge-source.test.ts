import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openBridgeWriter, type BridgeWriter } from "../src/bridge/writer.js";
import { recallHome } from "../src/platform/paths.js";
import { sessionFilter, sessionsForAlias } from "../src/search/session-aliases.js";
import { forget } from "../src/indexer/forget.js";
import { resetDerived } from "../src/indexer/rebuild.js";
import { navigationLink } from "../src/search/links.js";
import { MAX_ROWS } from "../src/sources/bridge/source.js";
import { claudeProjects, createHarness, type Harness } from "./sources-harness.js";
import { claudeLine } from "./sources-lines.js";
import { documentRows } from "./helpers/document-text.js";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

let h: Harness;
let root: string;
let w: BridgeWriter;

beforeEach(async () => {
  h = await createHarness();
  root = path.join(recallHome(h.env), "bridge");
  w = openBridgeWriter(root);
});

afterEach(() => {
  w.close();
  h.close();
});

const hitsOf = (query: string, filters = {}) => h.search(query, filters);
const ids = (query: string, filters = {}) =>
  hitsOf(query, filters)
    .map((x) => x.id)
    .sort();
const docs = (hitId: string) => h.count("SELECT count(*) FROM recall_documents WHERE hit_id = ?", hitId);
const cursor = (key: string) =>
  (
    h.store.db
      .prepare("SELECT offset FROM recall_checkpoints WHERE source = 'bridge' AND key = ?")
      .get(key) as { offset: number } | undefined
  )?.offset ?? 0;
const bridgeRecords = (ticks: ReturnType<Harness["tick"]>) =>
  ticks.find((t) => t.source === "bridge")!.records;

describe("bridge source: every record type and link shape", () => {
  it("indexes messages, questions with answers, decision revisions, runs and cold messages with their links", () => {
    w.post({
      id: "m-1",
      sender: "alpha",
      recipients: ["beta"],
      body: "the walrus protocol",
      at: T0,
      job: "deploy",
    });
    w.post({
      id: "m-2",
      sender: "alpha",
      recipients: ["beta"],
      kind: "approval",
      body: "approve the narwhal",
      at: T0 + 1,
    });
    w.post({ id: "m-cold", sender: "beta", recipients: ["alpha"], body: "frozen capybara note", at: T0 + 2 });
    w.archiveMessages(["m-cold"]);
    w.ask({ id: "q-1", asker: "alpha", question: "which flamingo database", at: T0 + 3 });
    w.answer({ question: "q-1", answer: "use the pelican store", by: "owner", at: T0 + 4 });
    w.decide({ topic: "api-style", decision: "REST with toucan paging", by: "alpha", at: T0 + 5 });
    w.decide({ topic: "api-style", decision: "GraphQL with toucan cursors", by: "beta", at: T0 + 6 });
    const run = w.startRun({
      job: "build",
      at: T0 + 7,
      log: "compiling iguana\n",
      metadata: { ticket: "AB-99" },
    });
    const old = w.startRun({ job: "lint", at: T0 + 8, log: "archived gecko output\n" });
    w.archiveRun(old.name.log);
    h.index();

    const m1 = hitsOf("walrus");
    expect(m1).toHaveLength(1);
    expect(m1[0]).toMatchObject({
      id: "message:m-1",
      kind: "message",
      message: "m-1",
      job: "deploy",
      link: "/?message=m-1",
      sourceLink: "/api/history/message%3Am-1",
    });
    expect(hitsOf("narwhal")[0]).toMatchObject({
      id: "message:m-2",
      kind: "approval",
      link: "/?message=m-2",
    });
    expect(hitsOf("capybara")[0]).toMatchObject({ id: "message:m-cold", link: "/?message=m-cold" });
    // The question hit carries its exact answer.
    expect(hitsOf("pelican")[0]).toMatchObject({ id: "message:q-1", link: "/?message=q-1" });
    expect(hitsOf("flamingo")[0]!.id).toBe("message:q-1");

    expect(ids("toucan")).toEqual(["decision:api-style@1", "decision:api-style@2"]);
    for (const hit of hitsOf("toucan")) {
      expect(hit.kind).toBe("decision");
      expect(hit.link).toBe("/api/decisions/api-style/history");
    }

    const log = run.name.log;
    expect(log).toBe("build-20260601T120000Z.log");
    const chunk = hitsOf("iguana")[0]!;
    expect(chunk).toMatchObject({
      id: `run:${log}#0`,
      kind: "run",
      run: log,
      job: "build",
      cursor: "0",
      link: "/api/runs/build-20260601T120000Z?from=0",
      at: Date.UTC(2026, 5, 1, 12, 0, 0),
    });
    // Metadata is its own snapshot; unknown fields are searchable as quoted JSON.
    const meta = hitsOf("AB-99")[0]!;
    expect(meta).toMatchObject({ id: `run:${log}#meta`, kind: "run", run: log, job: "build" });
    const body = documentRows(h.store.db, "d.id", "WHERE d.hit_id = ?", meta.id)[0]!;
    expect(body.body).toContain('{"ticket":"AB-99"}');
    expect(hitsOf("gecko")[0]).toMatchObject({ id: `run:${old.name.log}#0`, run: old.name.log });
    expect(navigationLink({ ...chunk, conversation: chunk.conversation })).toBe(chunk.link);
  });

  it("answers arriving later update the question's one hit", () => {
    w.ask({ id: "q-2", asker: "alpha", question: "heron question", at: T0 });
    h.index();
    expect(ids("heron")).toEqual(["message:q-2"]);
    w.answer({ question: "q-2", answer: "an exact ostrich answer", by: "beta" });
    h.tick();
    expect(ids("ostrich")).toEqual(["message:q-2"]);
    expect(docs("message:q-2")).toBe(1);
    // The rewritten document (under a new rowid, ingest.ts renewText) keeps its participants.
    expect(ids("ostrich", { sessions: ["alpha"] })).toEqual(["message:q-2"]);
    expect(ids("ostrich", { sessions: ["beta"] })).toEqual(["message:q-2"]);
  });
});

describe("bridge source: messages", () => {
  it("keeps messages and questions in one id space: one hit id, one document", () => {
    w.post({ id: "same-1", sender: "alice", recipients: ["bob"], body: "message gnu", at: T0 });
    expect(() => w.ask({ id: "same-1", asker: "alice", question: "question ibex", at: T0 })).toThrow(
      expect.objectContaining({ kind: "Conflict" }),
    );
    w.ask({ id: "same-2", asker: "alice", question: "question ibex", at: T0 });
    expect(() => w.post({ id: "same-2", sender: "alice", recipients: ["bob"], body: "x", at: T0 })).toThrow(
      expect.objectContaining({ kind: "Conflict" }),
    );
  });

  it("reads a store removed and created again from its first row, the old one's records kept", () => {
    for (let i = 1; i <= 3; i++)
      w.post({ id: `old-${i}`, sender: "alice", recipients: ["bob"], body: `old ${i}`, at: T0 });
    w.decide({ topic: "t", decision: "old decision", by: "owner", at: T0 });
    h.index();
    expect(cursor("live")).toBeGreaterThan(0);
    w.close();
    rmSync(root, { recursive: true, force: true });
    w = openBridgeWriter(root);
    for (let i = 1; i <= 3; i++)
      w.post({ id: `new-${i}`, sender: "alice", recipients: ["bob"], body: `fresh wombat ${i}`, at: T0 + i });
    w.decide({ topic: "t", decision: "fresh decision wombat", by: "owner", at: T0 + 9 });
    h.clock.advance(60_000);
    h.index();
    expect(ids("wombat")).toEqual(["decision:t@1", "message:new-1", "message:new-2", "message:new-3"]);
    expect(ids("old")).toEqual(["message:old-1", "message:old-2", "message:old-3"]);
  });

  it("keeps a broadcast as one hit whose sender and every recipient filter it", () => {
    w.post({
      id: "b-1",
      sender: "lead",
      recipients: ["w1", "w2", "w3"],
      body: "broadcast lemur news",
      at: T0,
    });
    h.index();
    expect(ids("lemur")).toEqual(["message:b-1"]);
    for (const who of ["lead", "w1", "w2", "w3"]) {
      expect(ids("lemur", { sessions: sessionsForAlias(h.store.db, who) })).toEqual(["message:b-1"]);
    }
    expect(ids("lemur", { sessions: ["w4"] })).toEqual([]);
  });

  it("loses and doubles nothing when rowids are reused, rows archived or deleted between ticks", () => {
    const first = w.post({ id: "r-1", sender: "a", recipients: ["b"], body: "rowid one okapi", at: T0 });
    h.tick();
    expect(cursor("live")).toBe(first.rowId);
    w.deleteMessages(["r-1"]);
    // The live table is empty: SQLite hands out the same rowid again.
    const second = w.post({ id: "r-2", sender: "a", recipients: ["b"], body: "rowid two okapi", at: T0 + 1 });
    expect(second.rowId).toBe(first.rowId);
    // Posted and gone before the next tick: archived, deleted, and the rowid reused again.
    w.post({ id: "r-3", sender: "a", recipients: ["b"], body: "archived okapi", at: T0 + 2 });
    w.archiveMessages(["r-3"]);
    w.post({ id: "r-4", sender: "a", recipients: ["b"], body: "deleted okapi", at: T0 + 3 });
    w.deleteMessages(["r-4"]);
    w.post({ id: "r-5", sender: "a", recipients: ["b"], body: "reused okapi", at: T0 + 4 });
    h.index();
    expect(ids("okapi")).toEqual(["message:r-1", "message:r-2", "message:r-3", "message:r-4", "message:r-5"]);
    for (const id of ["r-1", "r-2", "r-3", "r-4", "r-5"]) expect(docs(`message:${id}`)).toBe(1);
    expect(h.count("SELECT count(*) FROM recall_documents WHERE source = 'bridge'")).toBe(5);
  });

  it("keeps a message moved from live to cold as one hit", () => {
    w.post({ id: "c-1", sender: "a", recipients: ["b"], body: "migrating tapir", at: T0 });
    h.index();
    const before = hitsOf("tapir");
    w.archiveMessages(["c-1"]);
    h.index();
    expect(cursor("cold")).toBeGreaterThan(0);
    const after = hitsOf("tapir");
    expect(after).toHaveLength(1);
    expect(after[0]).toEqual(before[0]);
    expect(docs("message:c-1")).toBe(1);
  });

  it("reads at most 100 rows per table per tick", () => {
    const n = MAX_ROWS + 50;
    for (let i = 0; i < n; i++) {
      w.post({ id: `p-${i}`, sender: "a", recipients: ["b"], body: `bulk message ${i}`, at: T0 + i });
      w.decide({ topic: `topic-${i % 3}`, decision: `revision ${i}`, by: "a", at: T0 + i });
    }
    w.archiveMessages(Array.from({ length: n }, (_, i) => `p-${i}`));
    w.post({ id: "late", sender: "a", recipients: ["b"], body: "late one", at: T0 });
    h.tick();
    expect(cursor("live")).toBeLessThanOrEqual(MAX_ROWS + 1);
    expect(cursor("inserts")).toBe(MAX_ROWS);
    expect(cursor("decisions")).toBe(MAX_ROWS);
    expect(cursor("cold")).toBe(MAX_ROWS);
    const ticks = h.tick();
    expect(cursor("inserts")).toBe(n + 1);
    expect(cursor("decisions")).toBe(n);
    expect(cursor("cold")).toBe(n);
    expect(bridgeRecords(ticks)).toBeLessThanOrEqual(4 * MAX_ROWS);
    h.index();
    expect(
      h.count("SELECT count(*) FROM recall_documents WHERE source = 'bridge' AND kind = 'message'"),
    ).toBe(n + 1);
    expect(
      h.count("SELECT count(*) FROM recall_documents WHERE source = 'bridge' AND kind = 'decision'"),
    ).toBe(n);
  });

  it("reindex keeps pending live-message captures: a message only the insert queue holds comes back", () => {
    w.post({ id: "gone", sender: "a", recipients: ["b"], body: "ephemeral quokka", at: T0 });
    w.deleteMessages(["gone"]);
    h.index();
    expect(ids("quokka")).toEqual(["message:gone"]);
    resetDerived(h.store.db, ["bridge"]);
    expect(ids("quokka")).toEqual([]);
    h.restart();
    h.index();
    expect(ids("quokka")).toEqual(["message:gone"]);
  });

  it("forgets one project's messages from a thread that spans projects, and only those, now and after a rebuild", () => {
    const post = (id: string, project: string, at: number) =>
      w.post({
        id,
        sender: "lead",
        recipients: ["w1"],
        body: `ibis note ${id}`,
        at,
        conversation: "t-mixed",
        project,
      });
    post("m-a1", "/nonexistent/proj-a", T0);
    post("m-b1", "/nonexistent/proj-b", T0 + 1);
    post("m-a2", "/nonexistent/proj-a", T0 + 2);
    // A thread's message of no project, then one of proj-a only, in another thread.
    w.post({
      id: "m-n1",
      sender: "lead",
      recipients: ["w1"],
      body: "ibis none",
      at: T0 + 3,
      conversation: "t-two",
    });
    post("m-a3", "/nonexistent/proj-a", T0 + 4);
    w.post({
      id: "m-a4",
      sender: "lead",
      recipients: ["w1"],
      body: "ibis a4",
      at: T0 + 5,
      conversation: "t-two",
      project: "/nonexistent/proj-a",
    });
    h.index();
    expect(ids("ibis")).toEqual([
      "message:m-a1",
      "message:m-a2",
      "message:m-a3",
      "message:m-a4",
      "message:m-b1",
      "message:m-n1",
    ]);
    const result = forget(h.store.db, { project: "/nonexistent/proj-a" }, T0 + 10);
    expect(result).toMatchObject({ conversations: 2, documents: 4, records: 4 });
    expect(ids("ibis")).toEqual(["message:m-b1", "message:m-n1"]);
    const thread = h.store.db
      .prepare("SELECT project FROM recall_conversations WHERE id = 'bridge:t-mixed'")
      .get();
    expect(thread).toEqual({ project: "/nonexistent/proj-b" });
    resetDerived(h.store.db, ["bridge"]);
    h.restart();
    h.index();
    expect(ids("ibis")).toEqual(["message:m-b1", "message:m-n1"]);
  });
});

describe("bridge source: run logs", () => {
  it("follows a growing log from its byte cursor, holding back an unfinished line", () => {
    const run = w.startRun({ job: "grow", at: T0, log: "first zebra line\n" });
    h.index();
    expect(hitsOf("zebra")[0]!.cursor).toBe("0");
    w.appendRun(run.name.log, "second giraffe line\npartial hippo");
    h.tick();
    const giraffe = hitsOf("giraffe")[0]!;
    expect(giraffe.cursor).toBe(String(Buffer.byteLength("first zebra line\n")));
    expect(giraffe.link).toBe(`/api/runs/${run.name.base}?from=${giraffe.cursor}`);
    expect(ids("hippo")).toEqual([]);
    w.appendRun(run.name.log, "potamus done\n");
    h.tick();
    const tail = hitsOf("hippopotamus")[0]!;
    expect(tail.cursor).toBe(String(Buffer.byteLength("first zebra line\nsecond giraffe line\n")));
    expect(
      h.count(
        "SELECT count(*) FROM recall_documents WHERE run = ? AND hit_id NOT LIKE '%#meta'",
        run.name.log,
      ),
    ).toBe(3);
  });

  it("cuts a large log into bounded chunks, each with its own byte offset", () => {
    const line = (i: number) => `line ${i} ${"filler ".repeat(20)}\n`;
    const text = Array.from({ length: 2000 }, (_, i) => line(i)).join("") + "needle wombat\n";
    const run = w.startRun({ job: "big", at: T0, log: text });
    h.index();
    const hit = hitsOf("wombat")[0]!;
    const offset = Number(hit.cursor);
    expect(
      readFileSync(path.join(root, "runs", run.name.log))
        .subarray(offset)
        .toString(),
    ).toContain("needle wombat");
    const sizes = documentRows(h.store.db, "d.id", "WHERE d.run = ?", run.name.log).map((d) => ({
      n: Buffer.byteLength(d.body),
    }));
    expect(sizes.length).toBeGreaterThan(text.length / (8 * 1024));
    expect(Math.max(...sizes.map((s) => s.n))).toBeLessThanOrEqual(8 * 1024);
  });

  it("refreshes the metadata snapshot when its content changes without log growth", () => {
    const run = w.startRun({ job: "meta", at: T0, log: "steady log\n", metadata: { stage: "koala" } });
    h.index();
    expect(ids("koala")).toEqual([`run:${run.name.log}#meta`]);
    const quiet = h.tick();
    expect(bridgeRecords(quiet)).toBe(0);
    w.writeRunMetadata(run.name.log, {
      job: "meta",
      jobStartedAt: new Date(T0).toISOString(),
      stage: "panda",
    });
    h.index();
    expect(ids("panda")).toEqual([`run:${run.name.log}#meta`]);
    expect(ids("koala")).toEqual([]);
    expect(ids("steady")).toHaveLength(1);
  });

  it("skips and counts malformed metadata once, never touching it, and still indexes the log", () => {
    const run = w.startRun({ job: "broken", at: T0, log: "log of the mongoose\n" });
    const metaFile = path.join(root, "runs", `${run.name.base}.json`);
    writeFileSync(metaFile, "{ not json");
    const bytes = readFileSync(metaFile);
    const first = h.index();
    expect(first.sources.bridge!.counters.malformed).toBe(1);
    expect(ids("mongoose")).toEqual([`run:${run.name.log}#0`]);
    h.tick();
    h.tick();
    expect(h.count("SELECT malformed FROM recall_source_stats WHERE source = 'bridge'")).toBe(1);
    expect(readFileSync(metaFile).equals(bytes)).toBe(true);
    expect(readdirSync(path.join(root, "runs")).sort()).toEqual([
      "archive",
      `${run.name.base}.json`,
      run.name.log,
    ]);
  });

  it("times a run by jobStartedAt, else its name's UTC start, else its birth time", () => {
    const given = Date.UTC(2026, 0, 2, 3, 4, 5);
    w.startRun({
      job: "timed",
      at: T0,
      log: "timed anteater\n",
      metadata: { jobStartedAt: new Date(given).toISOString() },
    });
    w.startRun({ job: "named", at: T0 + 60_000, log: "named anteater\n" });
    writeFileSync(path.join(root, "runs", "named-20260601T120100Z.json"), "[]");
    writeFileSync(path.join(root, "runs", "loose.log"), "loose anteater\n");
    h.index();
    const at = (q: string) => hitsOf(q)[0]!.at;
    expect(at("timed")).toBe(given);
    expect(at("named")).toBe(T0 + 60_000);
    const born = statSync(path.join(root, "runs", "loose.log"));
    expect(at("loose")).toBe(Math.floor(born.birthtimeMs > 0 ? born.birthtimeMs : born.mtimeMs));
    expect(hitsOf("loose")[0]!.link).toBe("/api/runs/loose?from=0");
  });

  it("keeps a run moved to runs/archive one run, continuing from its cursor", () => {
    const run = w.startRun({ job: "mover", at: T0, log: "before the move dingo\n" });
    h.index();
    w.archiveRun(run.name.log);
    w.appendRun(run.name.log, "after the move dingo\n");
    h.clock.advance(31_000);
    h.index();
    expect(ids("dingo")).toEqual([
      `run:${run.name.log}#0`,
      `run:${run.name.log}#${Buffer.byteLength("before the move dingo\n")}`,
    ]);
  });
});

describe("bridge source: filters", () => {
  function transcript(session: string, text: string): void {
    const dir = path.join(claudeProjects(h.home), "-work-proj");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `${session}.jsonl`),
      claudeLine({ uuid: `${session}-u1`, session, text, at: T0 }),
    );
  }

  it("finds a job's runs, messages and the CLI transcripts its run metadata names", () => {
    const session = "11111111-2222-3333-4444-555555555555";
    transcript(session, "refactor the pelican parser");
    transcript("99999999-2222-3333-4444-555555555555", "unrelated pelican chatter");
    w.startRun({
      job: "refactor",
      at: T0,
      log: "pelican build output\n",
      metadata: { session, agent: "claude" },
    });
    // Another job run in the same CLI session: its run is that job's, not this one's.
    w.startRun({
      job: "lint",
      at: T0 + 1,
      log: "pelican lint output\n",
      metadata: { session, agent: "claude" },
    });
    w.post({ id: "j-1", sender: "a", recipients: ["b"], body: "pelican status", job: "refactor", at: T0 });
    w.post({
      id: "j-2",
      sender: "a",
      recipients: ["b"],
      body: "pelican elsewhere",
      job: "other-job",
      at: T0,
    });
    h.index();
    const found = hitsOf("pelican", { job: "refactor" });
    expect(found.map((x) => x.kind).sort()).toEqual(["message", "run", "transcript"]);
    expect(found.find((x) => x.kind === "transcript")!.session).toBe(session);
    expect(found.filter((x) => x.kind === "run").map((x) => x.job)).toEqual(["refactor"]);
    const lint = hitsOf("pelican", { job: "lint" });
    expect(lint.map((x) => `${x.kind}:${x.job ?? x.session}`).sort()).toEqual([
      "run:lint",
      `transcript:${session}`,
    ]);
    expect(hitsOf("pelican", { job: "other-job" }).map((x) => x.id)).toEqual(["message:j-2"]);
    expect(hitsOf("pelican", { job: "nothing" })).toEqual([]);
  });

  it("turns bind records into session aliases usable as the session filter", () => {
    const session = "aaaaaaaa-2222-3333-4444-555555555555";
    transcript(session, "the cassowary transcript");
    w.bind({ peer: "builder-1", agent: "claude", session });
    w.post({ id: "k-1", sender: "builder-1", recipients: ["lead"], body: "cassowary report", at: T0 });
    w.post({ id: "k-2", sender: "lead", recipients: ["other"], body: "cassowary elsewhere", at: T0 });
    h.index();
    const sessions = sessionsForAlias(h.store.db, "builder-1");
    expect(sessions).toContain(session);
    const found = ids("cassowary", { sessions });
    expect(found).toHaveLength(2);
    expect(found[0]).toBe("message:k-1");
    expect(found[1]).toMatch(/^transcript:claude:aaaaaaaa-/);
    // The CLI session id reaches the peer's bridge messages too.
    expect(ids("cassowary", { sessions: sessionFilter(h.store.db, session) }).sort()).toEqual(
      [...found].sort(),
    );
  });

  it("forgets exactly what the session filter finds, a peer's bridge messages included, for good", () => {
    const session = "bbbbbbbb-2222-3333-4444-555555555555";
    transcript(session, "the quetzal transcript");
    w.bind({ peer: "builder-2", agent: "claude", session });
    w.post({ id: "q-1", sender: "builder-2", recipients: ["lead"], body: "quetzal report", at: T0 });
    w.post({ id: "q-2", sender: "lead", recipients: ["builder-2"], body: "quetzal reply", at: T0 + 1 });
    w.post({ id: "q-3", sender: "lead", recipients: ["other"], body: "quetzal elsewhere", at: T0 + 2 });
    w.ask({ id: "q-4", asker: "builder-2", question: "quetzal question", at: T0 + 3 });
    h.index();
    const matched = ids("quetzal", { sessions: sessionFilter(h.store.db, session) });
    expect(matched).toHaveLength(4);
    forget(h.store.db, { session }, T0 + 10);
    expect(ids("quetzal")).toEqual(["message:q-3"]);
    // Not back from a rescan of the store, nor from a rebuild.
    resetDerived(h.store.db, ["bridge"]);
    h.restart();
    h.index();
    expect(ids("quetzal")).toEqual(["message:q-3"]);
    // A message the peer sends later is new history, kept.
    w.post({ id: "q-5", sender: "builder-2", recipients: ["lead"], body: "quetzal later", at: T0 + 60_000 });
    h.clock.advance(60_000);
    h.index();
    expect(ids("quetzal")).toEqual(["message:q-3", "message:q-5"]);
  });
});

describe("bridge source: read-only", () => {
  function snapshot(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const full = path.join(d, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (!/-(shm|wal)$/.test(name)) {
          out[path.relative(dir, full)] = createHash("sha256").update(readFileSync(full)).digest("hex");
        }
      }
    };
    walk(dir);
    return out;
  }

  it("never changes the store's bytes", () => {
    w.post({ sender: "a", recipients: ["b", "c"], body: "bytes stay", at: T0 });
    w.ask({ asker: "a", question: "bytes question", at: T0 });
    w.decide({ topic: "t", decision: "bytes decision", by: "a", at: T0 });
    w.bind({ peer: "a", session: "s-1" });
    const run = w.startRun({ job: "bytes", at: T0, log: "bytes log\nunfinished" });
    w.archiveMessages([]);
    w.writeRunMetadata(run.name.log, { job: "bytes", extra: 1 });
    writeFileSync(path.join(root, "runs", "bad-20260101T000000Z.log"), "x\n");
    writeFileSync(path.join(root, "runs", "bad-20260101T000000Z.json"), "nope");
    w.close();
    const before = snapshot(root);
    h.index();
    h.clock.advance(120_000);
    h.index();
    expect(snapshot(root)).toEqual(before);
    w = openBridgeWriter(root);
  });
});

describe("bridge source: plain engine", () => {
  it("finds an answer that arrived later, with its participants, in the plain engine too", async () => {
    const p = await createHarness({ engine: "plain" });
    const pw = openBridgeWriter(path.join(recallHome(p.env), "bridge"));
    try {
      pw.ask({ id: "pq-1", asker: "alpha", question: "plain heron question", at: T0 });
      p.index();
      pw.answer({ question: "pq-1", answer: "a plain ostrich answer", by: "beta" });
      p.tick();
      expect(p.search("ostrich", { sessions: ["beta"] }).map((x) => x.id)).toEqual(["message:pq-1"]);
    } finally {
      pw.close();
      p.close();
    }
  });

  it("applies the participant and job filters the same way", async () => {
    const p = await createHarness({ engine: "plain" });
    const pw = openBridgeWriter(path.join(recallHome(p.env), "bridge"));
    try {
      pw.post({
        id: "pb-1",
        sender: "lead",
        recipients: ["w1", "w2"],
        body: "plain broadcast",
        job: "j1",
        at: T0,
      });
      pw.startRun({ job: "j1", at: T0, log: "plain run\n" });
      p.index();
      expect(p.store.engine).toBe("plain");
      expect(p.search("plain", { sessions: ["w2"] }).map((x) => x.id)).toEqual(["message:pb-1"]);
      expect(
        p
          .search("plain", { job: "j1" })
          .map((x) => x.kind)
          .sort(),
      ).toEqual(["message", "run"]);
      expect(p.search("plain", { sessions: ["nobody"] })).toEqual([]);
    } finally {
      pw.close();
      p.close();
    }
  });
});

describe("bridge source: an index a reader finds at schema v1", () => {
  it("still answers session filters (document sessions only) before the v2 migration ran", async () => {
    const p = await createHarness();
    try {
      p.store.db.exec("DROP TABLE recall_document_participants");
      expect(p.search("anything", { sessions: ["w1"] })).toEqual([]);
    } finally {
      p.close();
    }
  });
});

describe("run log chunking", () => {
  it("cuts long multi-byte lines on character boundaries and holds back an unfinished tail", async () => {
    const { readRunLog, RUN_DOC_BYTES } = await import("../src/sources/bridge/run-log.js");
    const { FileByteSource } = await import("../src/sources/files/byte-source.js");
    const file = path.join(root, "runs", "chars.log");
    const text = "é€😀a".repeat(3000); // 10 bytes a repeat, no newline
    writeFileSync(file, text);
    const source = new FileByteSource(file);
    try {
      const held = readRunLog(source, 0, 1 << 20, false);
      const flushed = readRunLog(source, 0, 1 << 20, true);
      for (const piece of flushed.pieces)
        expect(Buffer.byteLength(piece.text)).toBeLessThanOrEqual(RUN_DOC_BYTES);
      expect(flushed.pieces.map((p) => p.text).join("")).toBe(text);
      expect(flushed.next).toBe(Buffer.byteLength(text));
      expect(held.next).toBeLessThan(flushed.next);
      expect(held.pieces.map((p) => p.text).join("")).toBe(
        text.slice(0, held.pieces.map((p) => p.text).join("").length),
      );
      for (const piece of flushed.pieces) expect(piece.text).not.toContain("\uFFFD");
    } finally {
      source.close();
    }
  });
});

describe("run metadata arriving after the log", () => {
  it("re-reads the chunks when metadata changes the run's time, session or job", () => {
    const run = w.startRun({ job: "late", at: T0, log: "late meerkat output\n" });
    const metaFile = path.join(root, "runs", `${run.name.base}.json`);
    writeFileSync(metaFile, "{}");
    h.index();
    expect(hitsOf("meerkat")[0]).toMatchObject({ at: T0, session: null });
    const started = T0 - 3_600_000;
    w.writeRunMetadata(run.name.log, { jobStartedAt: started, session: "sess-late", status: "done" });
    h.index();
    const hits = hitsOf("meerkat");
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ id: `run:${run.name.log}#0`, at: started, session: "sess-late" });
    expect(hitsOf("done")[0]!.id).toBe(`run:${run.name.log}#meta`);
  });
});
