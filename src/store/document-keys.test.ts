import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { deferDocumentKeys, documentKeysIndexed, findDocument, noteDocument } from "./document-keys.js";
import { openHistoryStore, type HistoryStore } from "./history-store.js";

/**
 * The in-memory stand-in for the documents' key answers exactly as the index does, also once it
 * has grown several times (it starts at 65,536 slots and grows past 85 % full).
 */
describe("document key stand-in", () => {
  let cleanup = () => {};
  let store: HistoryStore | null = null;
  afterEach(() => {
    store?.close();
    store = null;
    cleanup();
  });

  it("finds every key among 150,000 documents, and no absent one, after growing", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    store = await openHistoryStore({ home: t.dir, projectionVersion: 1 });
    const db = store.db;
    const insert = db.prepare(
      `INSERT INTO recall_documents (source, source_key, own_hit_id, kind, agent, at, role, body, conversation,
         projection_version, fts_deferred)
       VALUES (?, ?, ?, 'transcript', 'claude', 0, 'user', '', ?, 1, 1)`,
    );
    const source = (n: number) => (n % 3 === 0 ? "codex" : "claude-code");
    const key = (n: number) => `k-${n.toString(36)}`;
    // A conversation is one source's (its documents' source is the conversation's: history-v16.ts).
    const conversation = (n: number) => `${source(n)}:c${n % 97}`;
    // Inserted through the documents view, whose trigger's rowid is not reported: the newest id.
    const newest = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'recall_record_rows'").pluck();
    db.transaction(() => {
      for (let n = 0; n < 100_000; n++) insert.run(source(n), key(n), `h${n}`, conversation(n));
    })();
    deferDocumentKeys(db); // reads the 100,000 keys in
    db.transaction(() => {
      for (let n = 100_000; n < 150_000; n++) {
        insert.run(source(n), key(n), `h${n}`, conversation(n));
        const id = newest.get() as number;
        expect(noteDocument(db, source(n), key(n), id)).toBe(true);
      }
    })();
    const ids = new Map(
      (
        db.prepare("SELECT id, source_key AS key FROM recall_documents").all() as {
          id: number;
          key: string;
        }[]
      ).map((r) => [r.key, r.id]),
    );
    let found = 0;
    for (let n = 0; n < 150_000; n++) {
      const ref = findDocument(db, source(n), key(n));
      if (ref?.id === ids.get(key(n)) && ref?.conversation === conversation(n)) found++;
    }
    expect(found).toBe(150_000);
    // The same key under the other source, and keys never written.
    let absent = 0;
    for (let n = 0; n < 20_000; n++) {
      const other = source(n) === "codex" ? "claude-code" : "codex";
      if (findDocument(db, other, key(n)) === undefined) absent++;
      if (findDocument(db, source(n), key(n + 1_000_000)) === undefined) absent++;
    }
    expect(absent).toBe(40_000);
    documentKeysIndexed(db);
  });
});
