import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { byteOrder, KnownLoad } from "./known-load.js";
import type { IndexView, SourceCheckpoint } from "./types.js";

const checkpoint = (key: string): SourceCheckpoint => ({
  source: "s",
  key,
  offset: 0,
  size: null,
  mtime: null,
  headHash: null,
  state: null,
});

/** A view over sorted keys and files, counting the pages read. */
function pagedView(keys: string[], files: string[]): IndexView & { pages: number } {
  const sorted = (list: string[]) => [...list].sort(byteOrder);
  const view = {
    pages: 0,
    checkpointsAfter: (_source: string, after: string, limit: number) => {
      view.pages++;
      return sorted(keys)
        .filter((k) => byteOrder(k, after) > 0)
        .slice(0, limit)
        .map(checkpoint);
    },
    retainedFilesAfter: (_source: string, after: string, limit: number) => {
      view.pages++;
      return sorted(files)
        .filter((f) => byteOrder(f, after) > 0)
        .slice(0, limit);
    },
  };
  return view as unknown as IndexView & { pages: number };
}

const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${String(i).padStart(5, "0")}`);

describe("what a source's index already knows, read a page at a time", () => {
  it("reads every checkpoint, then every retained file, each once and in order, in one thorough step", () => {
    const view = pagedView(keys(600), ["b", "a"]);
    const seen: string[] = [];
    const load = new KnownLoad("s");
    const done = load.step(
      view,
      { thorough: true, expired: () => true },
      {
        checkpoint: (cp) => seen.push(cp.key),
        file: (f) => seen.push(`file:${f}`),
      },
    );
    expect(done).toBe(true);
    expect(load.done).toBe(true);
    expect(seen).toEqual([...keys(600), "file:a", "file:b"]);
  });

  it("hands back when its batch's time is up, a page at least, and goes on where it stopped", () => {
    const view = pagedView(keys(600), ["f"]);
    const seen: string[] = [];
    const load = new KnownLoad("s");
    const visit = {
      checkpoint: (cp: SourceCheckpoint) => seen.push(cp.key),
      file: (f: string) => seen.push(f),
    };
    // A batch whose time is up reads one page; one with time left (two pages here) reads on.
    expect(load.step(view, { thorough: false, expired: () => true }, visit)).toBe(false);
    expect(view.pages).toBe(1);
    let pages = 0;
    expect(load.step(view, { thorough: false, expired: () => ++pages >= 2 }, visit)).toBe(false);
    expect(view.pages).toBe(3);
    // 600 keys in pages of 256 (3 pages), then one page of files.
    expect(load.step(view, { thorough: false, expired: () => false }, visit)).toBe(true);
    expect(view.pages).toBe(4);
    expect(seen).toEqual([...keys(600), "f"]);
  });

  it("skips the files when the visitor does not take them", () => {
    const view = pagedView(keys(3), ["f"]);
    const seen: string[] = [];
    const budget = { expired: () => false };
    expect(new KnownLoad("s").step(view, budget, { checkpoint: (cp) => seen.push(cp.key) })).toBe(true);
    expect(seen).toEqual(keys(3));
    expect(view.pages).toBe(1);
  });

  it("orders strings as SQLite orders their UTF-8, which JavaScript's < does not for astral characters", () => {
    const words = ["\uffff", "\u{1f600}", "a", "é", "Z", "ab"];
    const db = new Database(":memory:");
    try {
      db.exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
      for (const w of words) db.prepare("INSERT INTO t VALUES (?)").run(w);
      const sqlite = (db.prepare("SELECT k FROM t ORDER BY k").all() as { k: string }[]).map((r) => r.k);
      expect([...words].sort(byteOrder)).toEqual(sqlite);
      expect([...words].sort()).not.toEqual(sqlite);
    } finally {
      db.close();
    }
  });
});
