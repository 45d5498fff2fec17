import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import type { ConversationRef, SourceBatch, SourceRecord } from "../sources/types.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import type { HistoryStore } from "../store/history-store.js";
import { ftsGroup } from "./fts-queue.js";
import { ingestBatch } from "./ingest.js";

const conversation = (id: string): ConversationRef => ({
  id,
  source: "test",
  agent: "claude",
  kind: "transcript",
  project: "/work/p",
  session: id,
  parent: null,
  title: null,
});

const record = (conv: ConversationRef, key: string, text: string): SourceRecord => ({
  sourceKey: key,
  hitId: `transcript:claude:${conv.id}:${key}`,
  conversation: conv,
  at: 1_700_000_000_000,
  role: "user",
  kind: "transcript",
  content: {
    type: "turn",
    turn: { role: "user", blocks: [{ type: "text", text }], isCompactionSummary: false },
  },
  cursor: null,
  message: null,
  job: null,
  run: null,
});

const batch = (parts: Partial<SourceBatch>): SourceBatch => ({
  resets: [],
  conversations: [],
  records: [],
  aliases: [],
  rawChunks: [],
  checkpoints: [],
  counters: { oversized: 0, malformed: 0, skipped: 0 },
  progress: null,
  idle: false,
  ...parts,
});

describe("FTS rows queued to the end of a batch or a backfill group", () => {
  const openStore = tempHistoryStores();
  const open = async () => (await openStore()).db;
  const ingest = (db: HistoryStore["db"], b: SourceBatch) =>
    ingestBatch(db, b, { source: "test", projectionVersion: PROJECTION_VERSION, now: 0 });
  const matches = (db: HistoryStore["db"], word: string) =>
    db.prepare("SELECT count(*) FROM recall_fts WHERE recall_fts MATCH ?").pluck().get(word);
  /** FTS5 compares its index with the documents table (rank 1: the content too). */
  const integrity = (db: HistoryStore["db"]) =>
    db.prepare("INSERT INTO recall_fts (recall_fts, rank) VALUES ('integrity-check', 1)").run();

  it("keeps the index consistent when later batches of a group rewrite, reset or re-read queued rows", async () => {
    const db = await open();
    const a = conversation("a");
    const b = conversation("b");
    db.transaction(() =>
      ftsGroup(db, () => {
        ingest(db, batch({ records: [record(a, "1", "original wombat"), record(b, "b1", "doomed quokka")] }));
        // Before the group ends: a rewrite of a queued document and a reset of another.
        ingest(db, batch({ records: [record(a, "1", "rewritten numbat")] }));
        ingest(db, batch({ resets: ["b"], records: [record(b, "b2", "fresh bilby")] }));
        ingest(db, batch({ records: [record(a, "2", "second platypus")] }));
      }),
    )();
    expect(() => integrity(db)).not.toThrow();
    expect(matches(db, "wombat")).toBe(0);
    expect(matches(db, "numbat")).toBe(1);
    expect(matches(db, "quokka")).toBe(0);
    expect(matches(db, "bilby")).toBe(1);
    expect(matches(db, "platypus")).toBe(1);
  });

  it("drops the queue with a group that fails, leaving nothing half-written", async () => {
    const db = await open();
    const a = conversation("a");
    expect(() =>
      db.transaction(() =>
        ftsGroup(db, () => {
          ingest(db, batch({ records: [record(a, "1", "lost echidna")] }));
          throw new Error("a source failed");
        }),
      )(),
    ).toThrow("a source failed");
    ingest(db, batch({ records: [record(a, "2", "kept dingo")] }));
    expect(() => integrity(db)).not.toThrow();
    expect(matches(db, "echidna")).toBe(0);
    expect(matches(db, "dingo")).toBe(1);
  });

  it("writes one segment for a whole group of batches", async () => {
    const db = await open();
    const conv = conversation("c");
    db.transaction(() =>
      ftsGroup(db, () => {
        for (let i = 0; i < 20; i++)
          ingest(db, batch({ records: [record(conv, String(i), `word${i} kangaroo`)] }));
      }),
    )();
    const segments = db
      .prepare("SELECT count(*) FROM recall_fts_data WHERE id > 10 AND (id & 137438953471) = 1")
      .pluck()
      .get();
    expect(segments).toBe(1);
    expect(matches(db, "kangaroo")).toBe(20);
  });
});
