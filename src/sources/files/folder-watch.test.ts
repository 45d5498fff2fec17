/**
 * A file source's filesystem watch: new files are read by the next batch without waiting for a
 * discovery sweep (the harness clock stands still, so no sweep falls due), a burst becomes one
 * sweep, a deleted folder is watched again once back, and a watch that cannot be added only
 * stops watching.
 */
import * as fs from "node:fs";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { claudeProjects, codexSessions, createHarness, type Harness } from "../../../test/sources-harness.js";
import { BASE_TIME, claudeLine, codexMeta, codexUserTurn } from "../../../test/sources-lines.js";
import { tempDir } from "../../../test/helpers/tmp.js";
import type { Source } from "../types.js";
import { FolderWatch, MAX_CHANGED } from "./folder-watch.js";
import { DISCOVERY_INTERVAL_MS } from "./jsonl-source.js";

/** fs.watch as Node has it, unless a test makes it fail as an exhausted inotify limit does. */
const failWatch = vi.hoisted(() => ({ code: null as string | null }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return {
    ...real,
    watch: ((...args: Parameters<typeof real.watch>) => {
      if (failWatch.code) throw Object.assign(new Error("watch failed"), { code: failWatch.code });
      return real.watch(...args);
    }) as typeof real.watch,
  };
});

const S1 = "7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c01";
const S2 = "7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c02";
const S3 = "7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c03";
const THREAD = "019a0000-1111-7222-8333-4444555566aa";

async function until<T>(what: string, probe: () => T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A watch's hooks that count events and keep log lines. */
function hooks() {
  const h = {
    events: 0,
    logs: [] as string[],
    changed: () => void (h.events += 1),
    log: (l: string) => void h.logs.push(l),
  };
  return h;
}

describe("a file source's folder watch", () => {
  let h: Harness | null = null;
  let cleanup = () => {};
  afterEach(() => {
    failWatch.code = null;
    h?.close();
    h = null;
    cleanup();
    cleanup = () => {};
  });

  const session = (id: string, text: string) =>
    claudeLine({ uuid: `${id}-u`, session: id, text, at: BASE_TIME });
  const source = (harness: Harness, name: string): Source => harness.sources.find((s) => s.name === name)!;

  it("reads a new session file, in a known or a new project folder, by the next batch, before any sweep is due", async () => {
    h = await createHarness();
    const project = path.join(claudeProjects(h.home), "-p");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, `${S1}.jsonl`), session(S1, "the first heron"));
    mkdirSync(codexSessions(h.home), { recursive: true });
    const watch = hooks();
    source(h, "claude-code").watch!(watch);
    h.index();
    expect(h.search("heron")).toHaveLength(1);
    expect(watch.logs).toContain("claude-code: watching 2 folders for new files");

    // The harness clock stands still: no discovery sweep falls due (it repeats after 30 s).
    expect(DISCOVERY_INTERVAL_MS).toBeGreaterThan(2_000);
    writeFileSync(path.join(project, `${S2}.jsonl`), session(S2, "the second heron"));
    await until("the watch's event", () => (watch.events > 0 ? true : undefined));
    h.tick();
    expect(h.search("heron")).toHaveLength(2);

    // A new project folder with its file written at once: the folder is watched and listed.
    const other = path.join(claudeProjects(h.home), "-q");
    const seen = watch.events;
    mkdirSync(other);
    writeFileSync(path.join(other, `${S3}.jsonl`), session(S3, "the third heron"));
    await until("the new folder's event", () => (watch.events > seen ? true : undefined));
    for (let i = 0; i < 3 && h.search("heron").length < 3; i++) h.tick();
    expect(h.search("heron")).toHaveLength(3);

    // An append to a known file is read at once too, without waiting for its turn to be polled.
    const before = watch.events;
    fs.appendFileSync(
      path.join(other, `${S3}.jsonl`),
      claudeLine({ uuid: "late", session: S3, text: "a late grebe", at: BASE_TIME + 1 }),
    );
    await until("the append's event", () => (watch.events > before ? true : undefined));
    h.tick();
    expect(h.search("grebe")).toHaveLength(1);

    // A source that does not watch (Codex here) finds a new file only with its next sweep.
    const rollout = path.join(codexSessions(h.home), `rollout-2026-06-01T12-00-00-${THREAD}.jsonl`);
    writeFileSync(rollout, codexMeta(THREAD) + codexUserTurn(THREAD, "the codex osprey", BASE_TIME, "c1"));
    h.tick();
    expect(h.search("osprey")).toHaveLength(0);
    h.clock.advance(DISCOVERY_INTERVAL_MS);
    for (let i = 0; i < 5 && h.search("osprey").length === 0; i++) h.tick();
    expect(h.search("osprey")).toHaveLength(1);
  });

  it("a restarted source watches its known files' folders at once and takes a file written there before", async () => {
    h = await createHarness();
    const project = path.join(claudeProjects(h.home), "-p");
    mkdirSync(project, { recursive: true });
    const first = path.join(project, `${S1}.jsonl`);
    writeFileSync(first, session(S1, "the first heron"));
    // Written long ago, as a session is: the folder has changed since (S2 below).
    fs.utimesSync(first, new Date(BASE_TIME), new Date(BASE_TIME));
    h.index();
    // While no process runs: a new session in the known folder.
    writeFileSync(path.join(project, `${S2}.jsonl`), session(S2, "the second heron"));
    h.restart();
    const watch = hooks();
    source(h, "claude-code").watch!(watch);
    // One entry a tick, as the changed folder is listed: the walk would open the root and
    // examine "-p" only, so it would find neither file.
    h.tick({ maxEntries: 1 });
    if (h.search("heron").length < 2) h.tick({ maxEntries: 1 });
    expect(h.search("heron")).toHaveLength(2);
    // And "-p" is watched although the walk has not listed it: a new file is read by the next batch.
    writeFileSync(path.join(project, `${S3}.jsonl`), session(S3, "the third heron"));
    await until("the watch's event", () => (watch.events > 0 ? true : undefined));
    h.tick({ maxEntries: 1 });
    expect(h.search("heron")).toHaveLength(3);
  });

  it("watches the folders of known files and those up to their root, listing only a folder changed since", () => {
    const t = tempDir("recall-watch-");
    cleanup = t.cleanup;
    const root = path.join(t.dir, "sessions");
    const day = path.join(root, "2026", "06", "01");
    const other = path.join(root, "2026", "07", "02");
    mkdirSync(day, { recursive: true });
    mkdirSync(other, { recursive: true });
    const known = [path.join(day, "a.jsonl"), path.join(other, "b.jsonl")];
    for (const f of known) writeFileSync(f, "x");
    writeFileSync(path.join(day, "new.jsonl"), "x");
    const w = new FolderWatch("test", hooks());
    const now = Date.now();
    w.addFoldersOf(
      [
        // "day" changed after its newest known file; "other" did not.
        { path: known[0]!, mtime: now - 60_000 },
        { path: known[1]!, mtime: now + 60_000 },
      ],
      [root],
      (p) => known.includes(p),
    );
    // root, 2026, 06, 01, 07, 02
    expect(w.size).toBe(6);
    // Listed when a batch asks, not before: "day" alone, its two entries.
    expect(w.take(32)).toEqual([]);
    expect(w.waiting).toBe(true);
    expect(w.list(32)).toBe(2);
    expect(w.take(32)).toEqual([{ path: path.join(day, "new.jsonl"), root, depth: 3 }]);
    expect(w.waiting).toBe(false);
    w.close();
  });

  it("lists changed folders within a batch's bound of entries, the most recently changed first", () => {
    const t = tempDir("recall-watch-");
    cleanup = t.cleanup;
    const root = path.join(t.dir, "projects");
    const folders = ["-a", "-b", "-c"].map((name) => path.join(root, name));
    const known: string[] = [];
    folders.forEach((folder, i) => {
      mkdirSync(folder, { recursive: true });
      for (let k = 0; k < 3; k++) {
        const file = path.join(folder, `${k}.jsonl`);
        writeFileSync(file, "x");
        known.push(file);
      }
      writeFileSync(path.join(folder, "new.jsonl"), "x");
      // "-b" changed last, then "-c", then "-a".
      const at = new Date(BASE_TIME + [1, 3, 2][i]! * 60_000);
      fs.utimesSync(folder, at, at);
    });
    const w = new FolderWatch("test", hooks());
    w.addFoldersOf(
      known.map((p) => ({ path: p, mtime: BASE_TIME })),
      [root],
      (p) => known.includes(p),
    );
    const listed: number[] = [];
    const found: string[] = [];
    while (w.waiting) {
      listed.push(w.list(3));
      const taken = w.take(32);
      if (taken !== "sweep") for (const e of taken) found.push(path.relative(root, e.path));
    }
    // Twelve entries, three a batch; a folder's handle stays open between batches.
    expect(listed).toEqual([3, 3, 3, 3, 0]);
    expect(found).toEqual(["-b/new.jsonl", "-c/new.jsonl", "-a/new.jsonl"].map((p) => path.normalize(p)));
    w.close();
  });

  it("lists a new folder before the rest of a changed folder it is listing", () => {
    const t = tempDir("recall-watch-");
    cleanup = t.cleanup;
    const root = path.join(t.dir, "projects");
    const big = path.join(root, "-big");
    mkdirSync(big, { recursive: true });
    const known = [0, 1, 2, 3].map((k) => path.join(big, `${k}.jsonl`));
    for (const file of known) writeFileSync(file, "x");
    const w = new FolderWatch("test", hooks());
    w.addFoldersOf(
      known.map((p) => ({ path: p, mtime: BASE_TIME })),
      [root],
      () => false,
    );
    expect(w.list(1)).toBe(1);
    const fresh = path.join(root, "-new");
    mkdirSync(fresh);
    writeFileSync(path.join(fresh, "s.jsonl"), "x");
    w.addNew({ path: fresh, root, depth: 1 });
    expect(w.list(1)).toBe(1);
    const taken = w.take(32);
    expect(taken !== "sweep" && taken.map((e) => e.path)).toContain(path.join(fresh, "s.jsonl"));
    // Then the rest of the changed folder.
    while (w.waiting) {
      w.list(32);
      w.take(32);
    }
    w.close();
  });

  it("takes a burst too large to hold as one sweep", async () => {
    const t = tempDir("recall-watch-");
    cleanup = t.cleanup;
    const watch = hooks();
    const w = new FolderWatch("test", watch);
    expect(w.add({ path: t.dir, root: t.dir, depth: 0 })).toBe(true);
    for (let i = 0; i < MAX_CHANGED + 10; i++) writeFileSync(path.join(t.dir, `f${i}`), "x");
    await until("every event", () => (watch.events >= MAX_CHANGED + 10 ? true : undefined));
    expect(w.waiting).toBe(true);
    expect(w.take(32)).toBe("sweep");
    expect(w.take(32)).toEqual([]);
    expect(w.waiting).toBe(false);
    w.close();
  });

  it("watches a deleted folder again once it is back", async () => {
    const t = tempDir("recall-watch-");
    cleanup = t.cleanup;
    const watch = hooks();
    const w = new FolderWatch("test", watch);
    const inner = path.join(t.dir, "inner");
    mkdirSync(inner);
    w.add({ path: t.dir, root: t.dir, depth: 0 });
    w.add({ path: inner, root: t.dir, depth: 1 });
    expect(w.size).toBe(2);
    rmSync(inner, { recursive: true });
    await until("the folder's watch dropped", () => (w.size === 1 ? true : undefined));
    mkdirSync(inner);
    await until("the parent's event", () => {
      const taken = w.take(32);
      return taken !== "sweep" && taken.some((e) => e.path === inner) ? true : undefined;
    });
    w.addNew({ path: inner, root: t.dir, depth: 1 });
    writeFileSync(path.join(inner, "again"), "x");
    await until("an event from the folder watched again", () => {
      const taken = w.take(32);
      return taken !== "sweep" && taken.some((e) => e.path === path.join(inner, "again")) ? true : undefined;
    });
    w.close();
  });

  it("stops watching, never indexing, when no watch can be added (an inotify limit)", async () => {
    h = await createHarness();
    const project = path.join(claudeProjects(h.home), "-p");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, `${S1}.jsonl`), session(S1, "the first heron"));
    const watch = hooks();
    source(h, "claude-code").watch!(watch);
    failWatch.code = "ENOSPC";
    h.index();
    expect(h.search("heron")).toHaveLength(1);
    expect(watch.logs).toContain(
      "claude-code: watching no more folders (ENOSPC); new files elsewhere wait for the discovery sweep",
    );
    // The sweep stays the backstop.
    writeFileSync(path.join(project, `${S2}.jsonl`), session(S2, "the second heron"));
    h.clock.advance(DISCOVERY_INTERVAL_MS);
    for (let i = 0; i < 5 && h.search("heron").length < 2; i++) h.tick();
    expect(h.search("heron")).toHaveLength(2);
    // Once watches can be added again, the next sweep adds them.
    failWatch.code = null;
    h.clock.advance(DISCOVERY_INTERVAL_MS);
    for (let i = 0; i < 3; i++) h.tick();
    writeFileSync(path.join(project, `${S3}.jsonl`), session(S3, "the third heron"));
    await until("the watch's event", () => (watch.events > 0 ? true : undefined));
    h.tick();
    expect(h.search("heron")).toHaveLength(3);
  });
});
