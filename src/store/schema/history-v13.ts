import { DOCUMENT_HIT_COLUMN, RECORD_HIT_COLUMN, derivedHitSql, hitIdsDerived } from "../hit-ids.js";
import type { Db } from "../open.js";
import type { Migration } from "../migrate.js";
import type { HistorySchemaContext } from "./history-v1.js";
import { rebuildTable } from "./rebuild-table.js";

/** The conversation index holds the key too: hit ids are looked up by the pair they derive from. */
const CONVERSATION_INDEX_SQL =
  "CREATE INDEX recall_documents_conversation ON recall_documents (conversation, source_key)";
/** The few hit ids stored (those not derived) keep an index of their own. */
const OWN_HIT_INDEX_SQL =
  "CREATE UNIQUE INDEX recall_documents_own_hit ON recall_documents (own_hit_id) WHERE own_hit_id IS NOT NULL";

const exists = (db: Db, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== undefined;

/** The table's columns with `hit_id` renamed, and the expressions that fill them from the old row. */
function copyColumns(db: Db, table: string, ownHit: string) {
  const names = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).map(
    (n) => `"${n}"`,
  );
  return {
    into: names.map((n) => (n === '"hit_id"' ? "own_hit_id" : n)),
    from: names.map((n) => (n === '"hit_id"' ? ownHit : n)),
  };
}

/**
 * Hit ids derived, not stored (store/hit-ids.ts): `hit_id` of documents and records becomes a
 * virtual generated column over `own_hit_id`, which keeps only ids the derivation would not
 * give. The unique hit-id index goes; the conversation index takes the key (hit lookups probe
 * it); stored ids get a partial index. Both tables are rebuilt (SQLite turns a stored column
 * into a generated one no other way), rowids and the documents' sequence kept. At 1M messages
 * this frees 237 MiB of the Zipf bench index and 184 MiB of the demo's. history.db's step 13, an
 * embedded index's step 7.
 */
export function deriveHitIds(db: Db): void {
  // Already of this shape (an index whose version records were rolled back, as a test does).
  if (hitIdsDerived(db)) return;
  const hitIndexed = exists(db, "recall_documents_hit");
  const conversationIndexed = exists(db, "recall_documents_conversation");
  rebuildTable(
    db,
    "recall_documents",
    (sql) => sql.replace(/\bhit_id TEXT NOT NULL,/, `own_hit_id TEXT,\n        ${DOCUMENT_HIT_COLUMN},`),
    {
      copy: copyColumns(
        db,
        "recall_documents",
        `CASE WHEN hit_id IS ${derivedHitSql("source_key")} THEN NULL ELSE hit_id END`,
      ),
      omit: ["recall_documents_hit", "recall_documents_conversation"],
    },
  );
  if (conversationIndexed) db.exec(CONVERSATION_INDEX_SQL);
  if (hitIndexed) db.exec(OWN_HIT_INDEX_SQL);
  rebuildTable(
    db,
    "recall_records",
    (sql) => sql.replace(/\bhit_id TEXT,/, `own_hit_id TEXT,\n        ${RECORD_HIT_COLUMN},`),
    {
      copy: copyColumns(
        db,
        "recall_records",
        `CASE WHEN hit_id IS NULL THEN '' WHEN hit_id = ${derivedHitSql("record_key")} THEN NULL ELSE hit_id END`,
      ),
    },
  );
}

export const historyV13: Migration<HistorySchemaContext> = {
  version: 13,
  name: "hit ids derived, not stored",
  foreignKeysOff: true,
  up: deriveHitIds,
};
