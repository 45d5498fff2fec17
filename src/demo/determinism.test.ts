import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dumpSqlite, isSqliteFile, listFiles } from "./corpus-audit.js";
import { generateDemoCorpus } from "./generate.js";
import { MANIFEST_FILE, type DemoManifest } from "./manifest.js";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "recall-demo-det-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** A corpus fingerprint: SHA-256 per plain file, row dump per SQLite database. */
function fingerprint(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of listFiles(root)) {
    const abs = path.join(root, rel);
    if (rel === MANIFEST_FILE) {
      const m = JSON.parse(readFileSync(abs, "utf8")) as DemoManifest;
      out.set(rel, JSON.stringify(m).split(root).join("<root>"));
    } else if (rel.endsWith("-wal") || rel.endsWith("-shm")) continue;
    else if (isSqliteFile(rel)) out.set(rel, createHash("sha256").update(dumpSqlite(abs)).digest("hex"));
    else out.set(rel, sha256(abs));
  }
  return out;
}

describe("demo corpus determinism", () => {
  let a: string;
  let b: string;
  let c: string;
  let ma: DemoManifest;
  let mb: DemoManifest;
  let filesRightAfter: string[];

  beforeAll(async () => {
    a = tmp();
    b = tmp();
    c = tmp();
    ma = await generateDemoCorpus({ root: a, seed: 1, messages: 600 });
    filesRightAfter = listFiles(a);
    mb = await generateDemoCorpus({ root: b, seed: 1, messages: 600 });
    await generateDemoCorpus({ root: c, seed: 2, messages: 600 });
  });

  it("the same seed produces the same files, byte for byte (SQLite: row for row)", () => {
    const fa = fingerprint(a);
    const fb = fingerprint(b);
    expect([...fa.keys()]).toEqual([...fb.keys()]);
    for (const [rel, hash] of fa) expect(fb.get(rel), rel).toBe(hash);
    expect(fa.size).toBeGreaterThan(40);
  });

  it("the same seed produces the same manifest (apart from the root)", () => {
    expect(JSON.stringify(mb).split(b).join("<root>")).toBe(JSON.stringify(ma).split(a).join("<root>"));
    expect(ma.needles.length).toBeGreaterThanOrEqual(10);
  });

  it("a different seed produces a different corpus", () => {
    const fa = fingerprint(a);
    const fc = fingerprint(c);
    let same = 0;
    for (const [rel, hash] of fa) if (fc.get(rel) === hash) same++;
    // Only constant app scaffolding may coincide.
    expect(same).toBeLessThan(fa.size / 2);
    expect(fc.get(MANIFEST_FILE)).not.toBe(fa.get(MANIFEST_FILE));
  });

  it("leaves every SQLite database in WAL mode, closed cleanly", () => {
    for (const rel of listFiles(a).filter((r) => r.endsWith(".db"))) {
      const db = new Database(path.join(a, rel), { readonly: true });
      try {
        expect(db.pragma("journal_mode", { simple: true }), rel).toBe("wal");
      } finally {
        db.close();
      }
    }
    // Closed cleanly: the WAL was checkpointed and removed, no rollback journal left behind.
    expect(filesRightAfter.filter((r) => /-(wal|shm|journal)$/.test(r))).toEqual([]);
  });
});
