import Database from "better-sqlite3";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { isRecallError } from "../core/errors.js";
import { backupDatabase } from "./migrate.js";
import { MAX_BACKUP_RESTARTS, type BackupStep } from "./stepped-backup.js";

/** A source of about 1,500 pages, and a second connection that writes it on every event-loop turn. */
function source(dir: string, journal: "wal" | "delete") {
  const file = path.join(dir, "host.db");
  const db = new Database(file);
  db.pragma(`journal_mode = ${journal}`);
  db.exec("CREATE TABLE t (x BLOB)");
  const insert = db.prepare("INSERT INTO t (x) VALUES (randomblob(3000))");
  db.transaction(() => {
    for (let i = 0; i < 2_000; i++) insert.run();
  })();
  let writing = true;
  let writes = 0;
  const write = () => {
    if (!writing) return;
    try {
      insert.run();
      writes++;
    } catch {
      // busy: the backup holds a lock this turn
    }
    setImmediate(write);
  };
  setImmediate(write);
  return {
    file,
    writes: () => writes,
    stop: () => {
      writing = false;
      db.close();
    },
  };
}

describe("the stepped protected backup", () => {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.reverse()) c();
    cleanups = [];
  });

  it("copies a WAL database that another connection keeps writing, from one snapshot, in bounded steps, checked", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const s = source(t.dir, "wal");
    cleanups.push(s.stop);
    const reader = new Database(s.file);
    cleanups.push(() => reader.close());
    const before = (reader.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
    const steps: BackupStep[] = [];
    let checkMs = -1;
    const target = path.join(t.dir, "host.db.split.1.bak");
    // What a backup killed half-way left: the next one removes it.
    writeFileSync(path.join(t.dir, "host.db.split.0.bak.partial"), "half");
    await backupDatabase(reader, target, {
      budgetMs: 2,
      onStep: (step) => steps.push(step),
      onCheck: (ms) => (checkMs = ms),
    });
    expect(s.writes()).toBeGreaterThan(0);
    expect(steps.length).toBeGreaterThan(5);
    expect(Math.max(...steps.map((st) => st.pages))).toBeLessThanOrEqual(256);
    expect(checkMs).toBeGreaterThanOrEqual(0);
    expect(reader.inTransaction).toBe(false);
    const copy = new Database(target, { readonly: true });
    cleanups.push(() => copy.close());
    // The snapshot the backup began with: the rows written meanwhile are not in it.
    expect((copy.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(before);
    expect(copy.pragma("quick_check", { simple: true })).toBe("ok");
    expect(readdirSync(t.dir).filter((n) => n.includes(".partial"))).toEqual([]);
  });

  it("gives up on a rollback-journal database written on every step, after a bounded number of restarts", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const s = source(t.dir, "delete");
    cleanups.push(s.stop);
    const reader = new Database(s.file);
    cleanups.push(() => reader.close());
    const target = path.join(t.dir, "host.bak");
    const error = await backupDatabase(reader, target, { budgetMs: 1 }).catch((e: unknown) => e);
    expect(isRecallError(error) && error.kind).toBe("Conflict");
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(t.dir).filter((n) => n.includes(".partial"))).toEqual([]);
    expect((error as Error).message).toContain(`each of ${MAX_BACKUP_RESTARTS} attempts`);
  });
});
