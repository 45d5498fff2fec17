import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { EMBEDDED_USERMERGE, mergeStep } from "../store/fts-merge.js";
import { attachChatSearch, type ChatSearch } from "./attach-chat-search.js";

/** Segments in the FTS5 index: each has one first leaf page, rowid (segid << 37) + 1 (fts5_index.c). */
const segments = (db: DyadFixture["db"]) =>
  db
    .prepare("SELECT count(*) FROM recall_fts_data WHERE id > 10 AND (id & 137438953471) = 1")
    .pluck()
    .get() as number;

describe("FTS5 merges run as bounded steps between chat batches", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  const setup = async (limits: { maxRows: number; maxBytes: number }) => {
    const t = tempDir();
    const f = createDyadDb(t.dir);
    const chat = f.chat(f.app(), "Merges");
    for (let i = 0; i < 60; i++) f.message(chat, "user", `message ${i} about merging segments quietly`);
    const search: ChatSearch = await attachChatSearch(f.db, { file: f.file, indexer: { limits } });
    cleanup = () => {
      f.db.close();
      t.cleanup();
    };
    return { f, search, chat };
  };

  it("installs automerge off, a raised crisismerge and wider levels, so no batch merges by itself", async () => {
    const { f } = await setup({ maxRows: 3, maxBytes: 1 << 20 });
    const config = Object.fromEntries(
      (f.db.prepare("SELECT k, v FROM recall_fts_config").all() as { k: string; v: number }[]).map((r) => [
        r.k,
        r.v,
      ]),
    );
    expect(config).toMatchObject({ automerge: 0, crisismerge: 64, usermerge: EMBEDDED_USERMERGE });
  });

  it("merges what 20 small batches flushed, in steps, and leaves the index searchable", async () => {
    const { f, search } = await setup({ maxRows: 3, maxBytes: 1 << 20 });
    await search.indexer.drain();
    const figures = search.indexer.figures();
    expect(figures.batches).toBe(20);
    expect(figures.mergeSteps).toBeGreaterThan(0);
    // Nothing is left for a step to do, and fewer segments remain than batches wrote.
    expect(mergeStep(f.db)).toBe(false);
    expect(segments(f.db)).toBeLessThan(EMBEDDED_USERMERGE);
    expect(
      f.db.prepare("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH 'merging'").pluck().get(),
    ).toBe(60);
  });

  it("a step merges only when a level holds enough segments, like automerge would", async () => {
    const { f, search } = await setup({ maxRows: 3, maxBytes: 1 << 20 });
    // Flush segments without the service's steps: one short of a merge, then enough.
    const { drainChatBatch } = await import("../indexer/chat-queue.js");
    for (let i = 0; i < EMBEDDED_USERMERGE - 1; i++) drainChatBatch(f.db, { maxRows: 3, maxBytes: 1 << 20 });
    expect(segments(f.db)).toBe(EMBEDDED_USERMERGE - 1);
    expect(mergeStep(f.db)).toBe(false);
    for (let i = 0; i < 5; i++) drainChatBatch(f.db, { maxRows: 3, maxBytes: 1 << 20 });
    const before = segments(f.db);
    expect(before).toBe(20);
    let steps = 0;
    while (mergeStep(f.db)) steps++;
    expect(steps).toBeGreaterThan(0);
    expect(segments(f.db)).toBeLessThan(before);
    expect(search.indexer.figures().batches).toBe(0);
  });

  it("reports a single message over the byte bound apart from the bounded batches", async () => {
    const { f, search, chat } = await setup({ maxRows: 50, maxBytes: 4096 });
    f.message(chat, "assistant", `a very long answer ${"with many words ".repeat(2000)}`);
    await search.indexer.drain();
    const figures = search.indexer.figures();
    expect(figures.indexed).toBe(61);
    expect(figures.longestOversizedMs).toBeGreaterThan(0);
    expect(figures.longestBatchMs).toBeGreaterThan(0);
  });
});
