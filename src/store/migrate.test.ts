import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { currentVersion, migrate, type Migration } from "./migrate.js";
import { openDatabase } from "./open.js";

const steps: Migration<void>[] = [
  {
    version: 1,
    name: "notes",
    up: (db) => db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"),
  },
  { version: 2, name: "tags", up: (db) => db.exec("ALTER TABLE notes ADD COLUMN tag TEXT") },
];

describe("migration executor", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  /** An existing database: at step 1, holding one note (so the next migration backs it up). */
  const existing = async (name: string, note: string) => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, name);
    const db = openDatabase(file);
    await migrate({ db, file, migrations: steps.slice(0, 1), context: undefined, backupDir: t.dir });
    db.prepare("INSERT INTO notes (text) VALUES (?)").run(note);
    return { dir: t.dir, file, db };
  };

  it("applies every step to a fresh database without a backup", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "a.db");
    const db = openDatabase(file);
    const result = await migrate({ db, file, migrations: steps, context: undefined, backupDir: t.dir });
    expect(result).toEqual({ from: 0, to: 2, backup: null });
    expect(currentVersion(db)).toBe(2);
    db.prepare("INSERT INTO notes (text, tag) VALUES ('x', 'y')").run();
    // Running again is a no-op.
    expect(await migrate({ db, file, migrations: steps, context: undefined, backupDir: t.dir })).toEqual({
      from: 2,
      to: 2,
      backup: null,
    });
    db.close();
  });

  it("backs up an existing database before changing it, and the backup holds the old data", async () => {
    const { dir, file, db } = await existing("b.db", "old data");
    const result = await migrate({
      db,
      file,
      migrations: steps,
      context: undefined,
      backupDir: path.join(dir, "bk"),
    });
    expect(result.from).toBe(1);
    expect(result.to).toBe(2);
    expect(result.backup).not.toBeNull();
    expect(existsSync(result.backup!)).toBe(true);

    const copy = new Database(result.backup!, { readonly: true });
    expect(copy.prepare("SELECT text FROM notes").all()).toEqual([{ text: "old data" }]);
    expect(currentVersion(copy)).toBe(1);
    // The old schema: no tag column yet.
    expect(copy.prepare("SELECT name FROM pragma_table_info('notes')").all()).toEqual([
      { name: "id" },
      { name: "text" },
    ]);
    copy.close();
    db.close();
  });

  it("keeps only the newest backup of a file in a folder of its own once a migration succeeded", async () => {
    const { dir, file, db } = await existing("b.db", "x");
    const bk = path.join(dir, "bk");
    mkdirSync(bk, { recursive: true });
    // An earlier migration's backup of this file, another file's, and a torn first load moved aside.
    const older = ["b.db.v0.2026-01-01T00-00-00-000Z.bak", "b.db.v0.2026-01-01T00-00-00-000Z.bak-wal"];
    const others = [
      "c.db.v1.2026-01-01T00-00-00-000Z.bak",
      "b.db.first-load-torn.2026-01-01T00-00-00-000Z",
      // Another process migrating from the same version at the same time: its backup stays.
      "b.db.v1.2026-01-01T00-00-00-000Z.bak",
    ];
    for (const name of [...older, ...others]) writeFileSync(path.join(bk, name), "old");
    // One that cannot be removed (here a folder) stays, and the migration still succeeds.
    const stuck = "b.db.v0.2026-01-02T00-00-00-000Z.bak";
    mkdirSync(path.join(bk, stuck, "inside"), { recursive: true });
    others.push(stuck);
    const result = await migrate({
      db,
      file,
      migrations: steps,
      context: undefined,
      backupDir: bk,
      removeOlderBackups: true,
    });
    db.close();
    const kept = path.basename(result.backup!);
    expect(
      readdirSync(bk)
        .filter((f) => !f.startsWith(kept))
        .sort(),
    ).toEqual(others.sort());
    expect(existsSync(result.backup!)).toBe(true);
  });

  it("removes no backup from a folder it was not told is the file's own (a host's)", async () => {
    const { dir, file, db } = await existing("app.db", "x");
    // Another folder's app.db, backed up here by the same host.
    writeFileSync(path.join(dir, "app.db.v0.2026-01-01T00-00-00-000Z.bak"), "theirs");
    await migrate({ db, file, migrations: steps, context: undefined, backupDir: dir });
    db.close();
    expect(existsSync(path.join(dir, "app.db.v0.2026-01-01T00-00-00-000Z.bak"))).toBe(true);
  });

  it("backs up a host database that has tables but no recall schema yet", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "host.db");
    const db = openDatabase(file);
    db.exec("CREATE TABLE host (x); INSERT INTO host VALUES (42)");
    const result = await migrate({ db, file, migrations: steps, context: undefined, backupDir: t.dir });
    expect(result.backup).not.toBeNull();
    const copy = new Database(result.backup!, { readonly: true });
    expect(copy.prepare("SELECT x FROM host").get()).toEqual({ x: 42 });
    copy.close();
    db.close();
  });

  it("refuses a database whose schema is newer than the code, changing nothing", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "c.db");
    const db = openDatabase(file);
    await migrate({ db, file, migrations: steps, context: undefined, backupDir: t.dir });
    await expect(
      migrate({ db, file, migrations: steps.slice(0, 1), context: undefined, backupDir: t.dir }),
    ).rejects.toMatchObject({
      kind: "SchemaTooNew",
      message: expect.stringContaining("schema version 2"),
    });
    expect(currentVersion(db)).toBe(2);
    db.close();
  });

  it("rolls back a failing step and records nothing for it", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "d.db");
    const db = openDatabase(file);
    const failing: Migration<void>[] = [
      steps[0]!,
      {
        version: 2,
        name: "broken",
        up: (d) => {
          d.exec("CREATE TABLE half (x)");
          throw new Error("boom");
        },
      },
    ];
    await expect(
      migrate({ db, file, migrations: failing, context: undefined, backupDir: t.dir }),
    ).rejects.toThrow("boom");
    expect(currentVersion(db)).toBe(1);
    expect(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    db.close();
  });

  it("a process opening while another applies a long step waits for it instead of failing busy", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "a.db");
    const dist = (name: string) =>
      JSON.stringify(
        new URL(`./${name}.ts`, import.meta.url).pathname.replace(/\.ts$/, ".js").replace("/src/", "/dist/"),
      );
    // The other process holds the write lock in its step for longer than the usual 5 s busy timeout.
    const script = `
      import { migrate } from ${dist("migrate")};
      import { openDatabase } from ${dist("open")};
      const db = openDatabase(${JSON.stringify(file)});
      await migrate({ db, file: null, context: undefined, backupDir: ${JSON.stringify(t.dir)}, migrations: [
        { version: 1, name: "slow", up: (d) => { d.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY)");
          console.log("locked"); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6500); } },
      ] });
      db.close();`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve()),
    );
    const db = openDatabase(file);
    const result = await migrate({
      db,
      file: null,
      context: undefined,
      backupDir: t.dir,
      migrations: [
        { version: 1, name: "slow", up: (d) => d.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY)") },
      ],
    });
    expect(result).toMatchObject({ from: 0, to: 1 });
    expect(db.prepare("SELECT count(*) FROM recall_migrations").pluck().get()).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    db.close();
    await new Promise((resolve) => child.on("exit", resolve));
  }, 20_000);
});
