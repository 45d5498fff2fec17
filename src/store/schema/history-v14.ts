import { derivedHitSql } from "../hit-ids.js";
import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/**
 * Records name their conversation by an integer (issue #32's lean store). Each record and each of
 * its three indexes held the conversation's id as text ('claude:<uuid>', 43 bytes): at 1M Zipf
 * messages the records and their indexes took 535 MiB, now 368. Conversations get `ref`, an
 * integer key never reused (AUTOINCREMENT: a record left behind can never join a later
 * conversation), and the rows move to recall_record_rows keyed by it. `recall_records` becomes a
 * view with the old columns (its hit_id computed as schema 13's generated column was), so every
 * reader reads as before, and a reader of an index not yet migrated reads the same names.
 * Writers write recall_record_rows (store/record-rows.ts).
 */
export const historyV14: Migration<HistorySchemaContext> = {
  version: 14,
  name: "records name their conversation by an integer",
  foreignKeysOff: true,
  up(db) {
    const columns = (
      db.prepare("SELECT name FROM pragma_table_info('recall_conversations')").pluck().all() as string[]
    ).map((n) => `"${n}"`);
    rebuildTable(
      db,
      "recall_conversations",
      (sql) =>
        sql.replace(
          /\bid TEXT PRIMARY KEY,/,
          "ref INTEGER PRIMARY KEY AUTOINCREMENT,\n        id TEXT NOT NULL UNIQUE,",
        ),
      { copy: { into: ["ref", ...columns], from: ["rowid", ...columns] } },
    );
    db.exec(`
      -- Coverage reads each source's newest conversation (indexer/coverage.ts, worker.ts): one probe.
      CREATE INDEX recall_conversations_source ON recall_conversations (source, updated_at);
      -- No writer leaves a record without its conversation; should one be there, it keeps one.
      INSERT INTO recall_conversations (id, source, agent, kind)
        SELECT r.conversation,
          coalesce((SELECT d.source FROM recall_documents d WHERE d.conversation = r.conversation LIMIT 1), ''),
          substr(r.conversation, 1, max(instr(r.conversation, ':') - 1, 0)), min(r.kind)
        FROM recall_records r WHERE r.conversation NOT IN (SELECT id FROM recall_conversations)
        GROUP BY r.conversation;
      CREATE TABLE recall_record_rows (
        id INTEGER PRIMARY KEY,
        conversation_ref INTEGER NOT NULL,
        ordinal INTEGER NOT NULL,
        record_key TEXT NOT NULL,
        at INTEGER NOT NULL,
        role TEXT NOT NULL,
        kind TEXT NOT NULL,
        own_hit_id TEXT,
        text TEXT NOT NULL,
        truncated INTEGER NOT NULL DEFAULT 0,
        cursor TEXT,
        model TEXT,
        branch TEXT,
        epoch INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO recall_record_rows (id, conversation_ref, ordinal, record_key, at, role, kind, own_hit_id, text,
          truncated, cursor, model, branch, epoch)
        SELECT r.id, c.ref, r.ordinal, r.record_key, r.at, r.role, r.kind, r.own_hit_id, r.text, r.truncated,
          r.cursor, r.model, r.branch, r.epoch
        FROM recall_records r JOIN recall_conversations c ON c.id = r.conversation ORDER BY r.id;
      DROP TABLE recall_records;
      -- Built after the copy, sorted: the writers' key, then the read indexes (store/read-indexes.ts).
      CREATE UNIQUE INDEX recall_records_key ON recall_record_rows (conversation_ref, record_key);
      CREATE UNIQUE INDEX recall_records_ordinal ON recall_record_rows (conversation_ref, ordinal);
      CREATE INDEX recall_records_time ON recall_record_rows (conversation_ref, at, ordinal);
      CREATE VIEW recall_records AS
        SELECT r.id AS id, c.id AS conversation, r.ordinal AS ordinal, r.record_key AS record_key, r.at AS at,
          r.role AS role, r.kind AS kind, r.own_hit_id AS own_hit_id,
          CASE WHEN r.own_hit_id IS NULL THEN ${derivedHitSql("r.record_key", "c.id", "r.kind")}
            ELSE nullif(r.own_hit_id, '') END AS hit_id,
          r.text AS text, r.truncated AS truncated, r.cursor AS cursor, r.model AS model, r.branch AS branch,
          r.epoch AS epoch
        FROM recall_record_rows r JOIN recall_conversations c ON c.ref = r.conversation_ref;
    `);
  },
};
