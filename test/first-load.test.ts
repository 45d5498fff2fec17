/**
 * A foreground first backfill into an empty index writes without fsyncs, behind a marker file
 * (store/first-load.ts); the next writer after a crash flushes the files or, after an OS
 * restart, sets the possibly torn index aside and starts a fresh one.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { joinBrokerElection } from "../src/app/broker-process.js";
import { ConfigSchema } from "../src/config/schema.js";
import { backfill } from "../src/indexer/backfill.js";
import { forget } from "../src/indexer/forget.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { currentBoot, markerFile, recoverFirstLoad } from "../src/store/first-load.js";
import { HISTORY_FILE, openHistoryStore, readyWriter } from "../src/store/history-store.js";
import { dropReadIndexesIfEmpty } from "../src/store/read-indexes.js";
import { claudeProjects, createHarness, type Harness } from "./sources-harness.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

function writeSessions(h: Harness, from: number, to: number): void {
  const dir = path.join(claudeProjects(h.home), "-nonexistent-recall-test-proj");
  mkdirSync(dir, { recursive: true });
  for (let s = from; s < to; s++) {
    const session = `7a0c1a2b-3c4d-4e5f-8a6b-${String(s).padStart(12, "0")}`;
    const lines = Array.from({ length: 5 }, (_, i) =>
      claudeLine({ uuid: `u${s}-${i}`, session, text: `plover note ${s} ${i}`, at: BASE_TIME + s * 10 + i }),
    );
    writeFileSync(path.join(dir, `${session}.jsonl`), lines.join(""));
  }
}

/** What each group of a foreground backfill saw: the connection's synchronous setting, the marker. */
function run(h: Harness, onGroupEnd?: () => void): { synchronous: number; marker: boolean }[] {
  const seen: { synchronous: number; marker: boolean }[] = [];
  const db = h.store.db;
  backfill(db, h.sources, {
    projectionVersion: PROJECTION_VERSION,
    clock: h.clock,
    deferReadIndexes: true,
    limits: { maxRecords: 5 },
    group: { records: 5, millis: 10_000 },
    onGroupEnd: () => {
      seen.push({
        synchronous: db.pragma("synchronous", { simple: true }) as number,
        marker: existsSync(markerFile(db.name)),
      });
      // Private, as the index beside it (README: recall creates its databases 0600).
      if (existsSync(markerFile(db.name)) && process.platform !== "win32")
        expect(statSync(markerFile(db.name)).mode & 0o777).toBe(0o600);
      onGroupEnd?.();
    },
  });
  return seen;
}

const NORMAL = 1;
const OFF = 0;

function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid;
}

describe("an unsynced first load", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("writes a first backfill without fsyncs behind a marker, and ends synced without it", async () => {
    h = await createHarness();
    writeSessions(h, 0, 6);
    const seen = run(h);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((s) => s.synchronous === OFF && s.marker)).toBe(true);
    const db = h.store.db;
    expect(db.pragma("synchronous", { simple: true })).toBe(NORMAL);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    expect(existsSync(markerFile(db.name))).toBe(false);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(h.search("plover")).toHaveLength(30);
  });

  it("is not used once the index holds history", async () => {
    h = await createHarness();
    writeSessions(h, 0, 1);
    h.index();
    writeSessions(h, 1, 5);
    h.clock.advance(60_000);
    const seen = run(h);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((s) => s.synchronous === NORMAL && !s.marker)).toBe(true);
    expect(h.search("plover")).toHaveLength(25);
  });

  it("is not used once a forget has left a tombstone, even with nothing indexed", async () => {
    h = await createHarness();
    writeSessions(h, 0, 2);
    h.index();
    forget(h.store.db, { session: "7a0c1a2b-3c4d-4e5f-8a6b-000000000000" }, h.clock.now());
    forget(h.store.db, { session: "7a0c1a2b-3c4d-4e5f-8a6b-000000000001" }, h.clock.now());
    expect(h.count("SELECT count(*) AS n FROM recall_records")).toBe(0);
    writeSessions(h, 2, 5);
    h.clock.advance(60_000);
    const seen = run(h);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((s) => s.synchronous === NORMAL && !s.marker)).toBe(true);
  });

  it("restores the usual durability when a group fails", async () => {
    h = await createHarness();
    writeSessions(h, 0, 6);
    let groups = 0;
    expect(() =>
      run(h!, () => {
        if (++groups === 2) throw new Error("disk full");
      }),
    ).toThrow("disk full");
    expect(h.store.db.pragma("synchronous", { simple: true })).toBe(NORMAL);
    expect(existsSync(markerFile(h.store.db.name))).toBe(false);
  });

  /**
   * Indexes 15 records, closes the index, leaves the given marker beside it and opens it again
   * as the next writer; returns whether the marker is still there and the records it then holds.
   */
  async function reopenWithMarker(marker: object): Promise<{ marker: boolean; records: number }> {
    h = await createHarness();
    writeSessions(h, 0, 3);
    h.index();
    const file = h.store.db.name;
    h.store.close();
    writeFileSync(markerFile(file), JSON.stringify(marker));
    const reopened = await openHistoryStore({ home: h.recallHome, projectionVersion: PROJECTION_VERSION });
    try {
      const n = reopened.db.prepare("SELECT count(*) AS n FROM recall_records").get() as { n: number };
      return { marker: existsSync(markerFile(file)), records: n.n };
    } finally {
      reopened.close();
    }
  }

  it("after a process crash, the next writer flushes the files and keeps the index", async () => {
    expect(await reopenWithMarker({ pid: deadPid(), boot: currentBoot() })).toEqual({
      marker: false,
      records: 15,
    });
  });

  it("after an OS restart, the next writer sets the index aside and starts a fresh one", async () => {
    expect(await reopenWithMarker({ pid: process.pid, boot: "another-boot" })).toEqual({
      marker: false,
      records: 0,
    });
    const backups = path.join(h!.recallHome, "backups");
    const aside = readdirSync(backups).find(
      (f) => f.startsWith(`${HISTORY_FILE}.first-load-torn.`) && !f.endsWith("-wal") && !f.endsWith("-shm"),
    );
    expect(aside).toBeDefined();
    const old = new Database(path.join(backups, aside!), { readonly: true });
    try {
      expect((old.prepare("SELECT count(*) AS n FROM recall_records").get() as { n: number }).n).toBe(15);
    } finally {
      old.close();
    }
  });

  it("leaves a load that is still running alone", async () => {
    h = await createHarness();
    const file = h.store.db.name;
    const marker = JSON.stringify({ pid: process.ppid, boot: currentBoot() });
    writeFileSync(markerFile(file), marker);
    expect(recoverFirstLoad(file, path.join(h.recallHome, "backups"))).toBe("running");
    expect(existsSync(markerFile(file))).toBe(true);
    // The same pid with another start time is another process that reused it (where /proc tells).
    if (existsSync(`/proc/${process.ppid}/stat`)) {
      writeFileSync(
        markerFile(file),
        JSON.stringify({ pid: process.ppid, boot: currentBoot(), started: "1" }),
      );
      expect(recoverFirstLoad(file, path.join(h.recallHome, "backups"))).toBe("flushed");
      writeFileSync(markerFile(file), marker);
    }
    expect(recoverFirstLoad(file, path.join(h.recallHome, "backups"), "another-boot")).toBe("set-aside");
    expect(existsSync(file)).toBe(false);
  });

  it("a broker elected after a first load died settles the load's marker, so a reboot does not set its work aside", async () => {
    h = await createHarness();
    const db = h.store.db;
    // A killed `recall index`: its marker names a process that is gone, on this boot.
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid;
    writeFileSync(markerFile(db.name), JSON.stringify({ pid: dead, boot: currentBoot() }));
    const broker = joinBrokerElection({
      home: h.recallHome,
      file: db.name,
      sourceEnv: h.env,
      config: ConfigSchema.parse({}),
      log: () => {},
    });
    try {
      await broker.elected();
      // The broker's thread settles it before it opens its writer.
      await vi.waitFor(() => expect(existsSync(markerFile(db.name))).toBe(false), { timeout: 10_000 });
    } finally {
      await broker.close();
    }
  });

  it("a process that opens the index leaves missing read indexes to the elected writer", async () => {
    h = await createHarness();
    const db = h.store.db;
    expect(dropReadIndexesIfEmpty(db)).toBe(true);
    const present = () =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'recall_documents_project'").get() !== undefined;
    writeFileSync(markerFile(db.name), JSON.stringify({ pid: process.ppid, boot: currentBoot() }));
    const open = async () =>
      (await openHistoryStore({ home: h!.recallHome, projectionVersion: PROJECTION_VERSION })).close();
    await open();
    expect(present()).toBe(false);
    rmSync(markerFile(db.name));
    await open();
    expect(present()).toBe(false);
    readyWriter(db, { buildMissingIndexes: true });
    expect(present()).toBe(true);
  });
});
