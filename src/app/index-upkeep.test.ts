import { describe, expect, it } from "vitest";
import { ftsRows } from "../../test/helpers/fts-answers.js";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import {
  ftsLevels,
  ftsMergePending,
  ftsRewriteDue,
  ftsSegments,
  tombstoneProbes,
} from "../store/fts-merge.js";
import type { Db } from "../store/open.js";
import { createIndexUpkeep, finishFtsWork } from "./index-upkeep.js";

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split(" ");

/**
 * Documents flushed to FTS5 in `batches` transactions with automerge off (a segment each), then
 * a merge of them started and left part way, as FTS5's automerge leaves one between writes.
 */
function halfMerged(db: Db, batches: number): void {
  db.exec("INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 0)");
  const insert = db.prepare(`INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at,
    role, title, body, projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', ?, 'user', '', ?, 1)`);
  let n = 0;
  for (let b = 0; b < batches; b++)
    db.transaction(() => {
      // Thousands of terms a segment: its leaves span many pages, more than a 1-page merge writes.
      for (let i = 0; i < 1_000; i++, n++) {
        const body = Array.from(
          { length: 12 },
          (_, w) => `${WORDS[(n + w) % WORDS.length]}${(n * 13 + w * 7919) % 20_000}`,
        );
        insert.run(`k${n}`, `t:k${n}`, n, body.join(" "));
      }
    })();
  db.exec("INSERT INTO recall_fts (recall_fts, rank) VALUES ('merge', 1)");
  db.exec("INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 4)");
}

/** The rows each of the words' numbered forms finds (the words are spread over 20,000 numbers). */
const found = (db: Db) =>
  ftsRows(
    db,
    WORDS.map((w) => `${w}1`),
  );

describe("the broker's idle upkeep of the index", () => {
  const store = tempHistoryStores();

  it("reads a merge under way from FTS5's structure record", async () => {
    const { db } = await store();
    expect(ftsMergePending(db)).toBe(false);
    halfMerged(db, 6);
    const levels = ftsLevels(db);
    expect(levels.some((l) => l.merging)).toBe(true);
    expect(ftsSegments(db)).toBeGreaterThan(1);
    expect(ftsMergePending(db)).toBe(true);
  });

  it("finishes a merge left under way on a worker thread, a few transactions a turn, finding the same rows", async () => {
    const { db, file } = await store();
    halfMerged(db, 6);
    const before = found(db);
    const upkeep = createIndexUpkeep(db, file);
    let turns = 1;
    while ((await upkeep.turn()) && turns < 50) turns++;
    expect(ftsMergePending(db)).toBe(false);
    expect(ftsLevels(db).some((l) => l.merging)).toBe(false);
    expect(found(db)).toEqual(before);
  });

  it("lets a foreground index finish every merge at once", async () => {
    const { db, file } = await store();
    halfMerged(db, 8);
    await finishFtsWork(db, file);
    expect(ftsMergePending(db)).toBe(false);
    expect(ftsSegments(db)).toBeLessThan(4);
  });

  it("rewrites the index once a run of deleted rows slows every lookup, dropping the tombstones", async () => {
    const { db, file } = await store();
    halfMerged(db, 6);
    await finishFtsWork(db, file);
    // A forgotten stretch of history: consecutive rowids, under FTS5's deletemerge share (10 %),
    // which would have it rewrite the segment itself.
    const before = found(db);
    db.prepare("DELETE FROM recall_documents WHERE id BETWEEN 2001 AND 2500").run();
    const deleted = (rows: number[]) => rows.filter((id) => id < 2001 || id > 2500);
    expect(tombstoneProbes(db)).toBeGreaterThan(10);
    expect(ftsRewriteDue(db)).toBe(true);
    const upkeep = createIndexUpkeep(db, file);
    let turns = 1;
    while ((await upkeep.turn()) && turns < 50) turns++;
    expect(tombstoneProbes(db)).toBe(0);
    expect(ftsRewriteDue(db)).toBe(false);
    expect(ftsSegments(db)).toBe(1);
    expect(found(db)).toEqual(before.map(deleted));
  });

  it("leaves a few scattered deletes alone: their lookups stay short", async () => {
    const { db, file } = await store();
    halfMerged(db, 6);
    await finishFtsWork(db, file);
    const remove = db.prepare("DELETE FROM recall_documents WHERE id = ?");
    for (let id = 7; id < 6_000; id += 37) remove.run(id);
    expect(tombstoneProbes(db)).toBeGreaterThan(0);
    expect(ftsRewriteDue(db)).toBe(false);
  });

  it("lets the event loop in between two terms' statistics, so a broker's requests wait one term at most", async () => {
    const { db, file } = await store();
    const insert = db.prepare(`INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at,
      role, title, body, projection_version) VALUES ('test', ?, ?, 'transcript', 'claude', ?, 'user', '', ?, 1)`);
    // Every word in 2,000 rows: each is a term the job keeps, one step each.
    db.transaction(() => {
      for (let n = 0; n < 2_000; n++) insert.run(`k${n}`, `t:k${n}`, n, `${WORDS.join(" ")} note${n}`);
    })();
    await finishFtsWork(db, file);
    const upkeep = createIndexUpkeep(db, file);
    let ticks = 0;
    let turning = true;
    const tick = () => {
      ticks++;
      if (turning) setImmediate(tick);
    };
    setImmediate(tick);
    const lists = () => db.prepare("SELECT count(*) FROM recall_term_lists").pluck().get() as number;
    // The vocabulary is read first, in steps sized by time: on a busy machine a turn may end there.
    for (let turn = 0; turn < 20 && lists() <= 3; turn++) await upkeep.turn();
    turning = false;
    expect(lists()).toBeGreaterThan(3);
    expect(ticks).toBeGreaterThan(3);
  });
});
