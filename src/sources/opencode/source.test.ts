/**
 * The opencode reader's pacing: a database that did not change is not scanned again, one that
 * did is; a database starved of session rows by another is still read; a storage/ session
 * changed after a quiet sweep is re-read; one whose files would not read, or whose newest
 * message does not parse yet, is tried again after a backoff.
 */
import Database from "better-sqlite3";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { failReads } from "../../../test/helpers/failing-reads.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import { createOpencodeV2Db } from "../../../test/helpers/opencode-db.js";
import type { Budget, IndexView, SourceBatch, SourceCheckpoint } from "../types.js";
import { byteOrder } from "../known-load.js";
import { IO_RETRY_FIRST_MS } from "../shared/io-retry.js";
import { SCAN_EVERY_TICKS } from "./cadence.js";
import { OpencodeDb } from "./db.js";
import { OpencodeSource } from "./source.js";

const AT = Date.UTC(2026, 0, 1);

const budget = (now = AT, thorough = true): Budget => ({
  maxRecords: 1000,
  maxBytes: 1 << 20,
  maxEntries: 32,
  maxSessionRows: 32,
  maxFiles: 2,
  now,
  expired: () => false,
  thorough,
});

/** Checkpoints as an index would hold them once each batch is committed. */
function memoryIndex(): IndexView & { commit(batch: SourceBatch): void } {
  const checkpoints = new Map<string, SourceCheckpoint>();
  return {
    checkpoint: (_source, key) => checkpoints.get(key),
    checkpointsAfter: (_source, after, limit) =>
      [...checkpoints.values()]
        .filter((cp) => byteOrder(cp.key, after) > 0)
        .sort((a, b) => byteOrder(a.key, b.key))
        .slice(0, limit),
    retainedFilesAfter: () => [],
    retainedExtent: () => null,
    readRetained: () => Buffer.alloc(0),
    retainedConversations: () => [],
    retainedChunks: () => [],
    retainedUnder: () => [],
    commit(batch) {
      for (const cp of batch.checkpoints) checkpoints.set(cp.key, cp);
    },
  };
}

/** Runs `count` ticks back to back; returns the message ids read. */
function ticks(source: OpencodeSource, index: ReturnType<typeof memoryIndex>, count: number): string[] {
  const read: string[] = [];
  for (let i = 0; i < count; i++) {
    const batch = source.nextBatch(index, budget());
    index.commit(batch);
    read.push(...batch.records.map((r) => r.sourceKey));
  }
  return read;
}

/**
 * Ticks with 10 ms between them, as a backfill's other work lets real time pass (a look for
 * changes waits PAUSE_PER_LOOK times its own cost, more on a loaded machine), until something
 * is read or 5 s have passed; returns the message ids read.
 */
function ticksUntilRead(source: OpencodeSource, index: ReturnType<typeof memoryIndex>): string[] {
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline) {
    const read = ticks(source, index, 1);
    if (read.length > 0) return [...read, ...ticks(source, index, SCAN_EVERY_TICKS)];
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  return [];
}

function addSession(db: Database.Database, id: string, at: number): void {
  db.prepare(
    "INSERT INTO session_v2 (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'p', 's', '/x', ?, '2', ?, ?)",
  ).run(id, `Session ${id}`, at, at);
  db.prepare(
    "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, 'user', 1, ?, ?, ?)",
  ).run(`msg_${id}`, id, at, at, JSON.stringify({ text: `hello from ${id}`, time: { created: at } }));
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

function storageMessage(dataDir: string, session: string, id: string, at: number): void {
  const storage = path.join(dataDir, "storage");
  writeJson(path.join(storage, "message", session, `${id}.json`), {
    id,
    sessionID: session,
    role: "user",
    time: { created: at },
  });
  writeJson(path.join(storage, "part", id, `prt_${id}.json`), {
    id: `prt_${id}`,
    sessionID: session,
    messageID: id,
    type: "text",
    text: `text of ${id}`,
  });
}

describe("opencode source pacing", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  function setup() {
    const t = tempDir();
    cleanups.push(t.cleanup);
    return path.join(t.dir, "opencode");
  }

  it("does not scan an unchanged database again, and finds what opencode commits", () => {
    const dataDir = setup();
    const writer = createOpencodeV2Db(path.join(dataDir, "opencode.db"));
    cleanups.push(() => writer.close());
    addSession(writer, "ses_a", AT);
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());
    const index = memoryIndex();

    expect(ticks(source, index, 40)).toEqual(["msg_ses_a"]);
    const scans = vi.spyOn(OpencodeDb.prototype, "changedSessions");
    expect(ticks(source, index, 4 * SCAN_EVERY_TICKS)).toEqual([]);
    expect(scans).not.toHaveBeenCalled();

    addSession(writer, "ses_b", AT + 10);
    expect(ticksUntilRead(source, index)).toEqual(["msg_ses_b"]);
  });

  it("reads a database whose session rows another database used up", () => {
    const dataDir = setup();
    const big = createOpencodeV2Db(path.join(dataDir, "opencode-a.db"));
    const small = createOpencodeV2Db(path.join(dataDir, "opencode-b.db"));
    for (let i = 0; i < 100; i++) addSession(big, `ses_a${String(i).padStart(3, "0")}`, AT + i);
    for (let i = 0; i < 5; i++) addSession(small, `ses_b${i}`, AT + i);
    big.close();
    small.close();
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());

    const read = ticks(source, memoryIndex(), 200);
    expect(new Set(read).size).toBe(105);
  });

  it("lists a database's sessions by rowid first, then follows changes from the newest it saw", () => {
    const dataDir = setup();
    const writer = createOpencodeV2Db(path.join(dataDir, "opencode.db"));
    cleanups.push(() => writer.close());
    // Change times in the reverse of rowid order: a listing by change time would read the last first.
    for (let i = 0; i < 100; i++) addSession(writer, `ses_${String(i).padStart(3, "0")}`, AT + 1000 - i);
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());
    const index = memoryIndex();
    const scans = vi.spyOn(OpencodeDb.prototype, "changedSessions");

    const first = ticks(source, index, 2);
    expect(scans).not.toHaveBeenCalled();
    expect(first.slice(0, 3)).toEqual(["msg_ses_000", "msg_ses_001", "msg_ses_002"]);
    addSession(writer, "ses_new", AT + 5000);
    const read = [...first, ...ticks(source, index, 40)];
    expect(new Set(read).size).toBe(101);
    expect(read).toContain("msg_ses_new");
    expect(scans).toHaveBeenCalled();
  });

  it("re-reads a storage/ session that changes after a quiet sweep", () => {
    const dataDir = setup();
    writeJson(path.join(dataDir, "storage", "session", "proj", "ses_old.json"), {
      id: "ses_old",
      directory: "/x",
      title: "Old",
      time: { created: AT, updated: AT },
    });
    storageMessage(dataDir, "ses_old", "msg_0001", AT);
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());
    const index = memoryIndex();

    expect(ticks(source, index, 4 * SCAN_EVERY_TICKS)).toEqual(["msg_0001"]);
    storageMessage(dataDir, "ses_old", "msg_0002", AT + 10);
    // Set the folder's mtime apart: both writes may fall within one millisecond.
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(dataDir, "storage", "message", "ses_old"), later, later);
    expect(ticksUntilRead(source, index)).toEqual(["msg_0002"]);
  });

  /** Background-worker ticks (a look at most once a second) at `now`: the ids read and malformed count. */
  function tickAt(source: OpencodeSource, index: ReturnType<typeof memoryIndex>, now: number) {
    const batch = source.nextBatch(index, budget(now, false));
    index.commit(batch);
    return { read: batch.records.map((r) => r.sourceKey), malformed: batch.counters.malformed };
  }

  function oldSession(dataDir: string): void {
    writeJson(path.join(dataDir, "storage", "session", "proj", "ses_old.json"), {
      id: "ses_old",
      directory: "/x",
      title: "Old",
      time: { created: AT, updated: AT },
    });
  }

  it("tries a storage/ message that would not read again after a backoff, and counts it once", () => {
    const dataDir = setup();
    oldSession(dataDir);
    storageMessage(dataDir, "ses_old", "msg_0001", AT);
    storageMessage(dataDir, "ses_old", "msg_0002", AT + 10);
    storageMessage(dataDir, "ses_old", "msg_0003", AT + 20);
    const faults = failReads(path.join(dataDir, "storage", "message", "ses_old", "msg_0002.json"), 2);
    cleanups.push(faults.restore);
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());
    const index = memoryIndex();

    // The read stops before the failed file: nothing after it is read out of order or lost.
    expect(tickAt(source, index, AT)).toEqual({ read: ["msg_0001"], malformed: 1 });
    expect(faults.failed()).toBe(1);
    for (let t = AT + 1_000; t < AT + IO_RETRY_FIRST_MS; t += 1_000) {
      expect(tickAt(source, index, t)).toEqual({ read: [], malformed: 0 });
    }
    expect(faults.failed()).toBe(1);
    // Due: it fails again (counted once), and the next wait is twice as long.
    expect(tickAt(source, index, AT + IO_RETRY_FIRST_MS)).toEqual({ read: [], malformed: 0 });
    expect(faults.failed()).toBe(2);
    expect(tickAt(source, index, AT + 2 * IO_RETRY_FIRST_MS)).toEqual({ read: [], malformed: 0 });
    expect(tickAt(source, index, AT + 3 * IO_RETRY_FIRST_MS)).toEqual({
      read: ["msg_0002", "msg_0003"],
      malformed: 0,
    });
  });

  it("waits for the newest storage/ message to parse (opencode may be writing it) and passes an older broken one", () => {
    const dataDir = setup();
    oldSession(dataDir);
    storageMessage(dataDir, "ses_old", "msg_0001", AT);
    storageMessage(dataDir, "ses_old", "msg_0002", AT + 10);
    storageMessage(dataDir, "ses_old", "msg_0003", AT + 20);
    const messages = path.join(dataDir, "storage", "message", "ses_old");
    writeFileSync(path.join(messages, "msg_0001.json"), "{not json");
    writeFileSync(path.join(messages, "msg_0003.json"), '{"id":"msg_0003","sessionID":"ses_o');
    const source = new OpencodeSource({ HOME: dataDir }, { dataDir, dbFile: null });
    cleanups.push(() => source.close());
    const index = memoryIndex();

    expect(tickAt(source, index, AT)).toEqual({ read: ["msg_0002"], malformed: 2 });
    storageMessage(dataDir, "ses_old", "msg_0003", AT + 20); // opencode finished writing it
    expect(tickAt(source, index, AT + IO_RETRY_FIRST_MS)).toEqual({ read: ["msg_0003"], malformed: 0 });
  });
});
