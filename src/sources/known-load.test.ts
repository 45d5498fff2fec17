import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { byteOrder, KnownLoad, LOAD_SLICE_MS } from "./known-load.js";
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

/** A view over sorted keys and files; each page read costs `pageMs` of busy time. */
function pagedView(keys: string[], files: string[], pageMs = 0): IndexView & { pages: number } {
  const sorted = (list: string[]) => [...list].sort(byteOrder);
  const spin = () => {
    const until = performance.now() + pageMs;
    while (performance.now() < until);
  };
  const view = {
    pages: 0,
    checkpointsAfter: (_source: string, after: string, limit: number) => {
      view.pages++;
      spin();
      return sorted(keys)
        .filter((k) => byteOrder(k, after) > 0)
        .slice(0, limit)
        .map(checkpoint);
    },
    retainedFilesAfter: (_source: string, after: string, limit: number) => {
      view.pages++;
      spin();
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
      { thorough: true },
      {
        checkpoint: (cp) => seen.push(cp.key),
        file: (f) => seen.push(`file:${f}`),
      },
    );
    expect(done).toBe(true);
    expect(load.done).toBe(true);
    expect(seen).toEqual([...keys(600), "file:a", "file:b"]);
  });

  it("hands back after its time slice in the background and goes on where it stopped", () => {
    // Each page costs more than the slice: every background step reads exactly one.
    const view = pagedView(keys(600), ["f"], LOAD_SLICE_MS + 5);
    const seen: string[] = [];
    const load = new KnownLoad("s");
    const visit = {
      checkpoint: (cp: SourceCheckpoint) => seen.push(cp.key),
      file: (f: string) => seen.push(f),
    };
    const steps: boolean[] = [];
    while (!load.done) steps.push(load.step(view, { thorough: false }, visit));
    // 600 keys in pages of 256 (3 pages), then one page of files.
    expect(steps).toEqual([false, false, false, true]);
    expect(view.pages).toBe(4);
    expect(seen).toEqual([...keys(600), "f"]);
  });

  it("skips the files when the visitor does not take them", () => {
    const view = pagedView(keys(3), ["f"]);
    const seen: string[] = [];
    expect(new KnownLoad("s").step(view, {}, { checkpoint: (cp) => seen.push(cp.key) })).toBe(true);
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
