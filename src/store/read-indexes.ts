import { deferDocumentKeys, documentKeysIndexed } from "./document-keys.js";
import { deferFtsMerges, ftsMergesDeferred, mergeDeferredFts } from "./fts-merge.js";
import type { Db } from "./open.js";

/** The documents' key: every document write looks its (source, key) up. */
export const DOCUMENT_KEY_INDEX = "recall_documents_key";

/**
 * Secondary indexes that serve only reads (filters, time order, hit ids, export and forget
 * lookups): no statement a backfill runs needs them. Kept one row at a time they cost a first
 * backfill several percent of its time (the hit-id and conversation indexes alone 5.5 s of a
 * 35 s store-only replay at 1M), so a foreground backfill drops those of empty tables (all of
 * them on a first backfill) and builds each once, sorted, at its end. Definitions are
 * history-v16's and the raw chunks' (history-v1's), verbatim. A record's row holds its document
 * (schema 16): the documents' indexes are the rows'; lookups by conversation go through the
 * rows' key (conversation, key), which is always there.
 */
const READ_INDEXES: readonly { name: string; table: string; columns: string; unique?: boolean }[] = [
  // Not a read index: the writers' key (a document's key across conversations: a line copied into
  // a resumed session keeps its document in the first). Deferred all the same, with an exact
  // in-memory stand-in for the writer's lookups meanwhile (store/document-keys.ts).
  {
    name: DOCUMENT_KEY_INDEX,
    table: "recall_record_rows",
    columns: "(record_key) WHERE projection_version IS NOT NULL",
  },
  // Hit ids derived from (conversation, key) are looked up through the rows' key; the few stored
  // whole have their own (store/hit-ids.ts).
  {
    name: "recall_documents_own_hit",
    table: "recall_record_rows",
    columns: "(own_hit_id) WHERE own_hit_id IS NOT NULL",
  },
  { name: "recall_documents_at", table: "recall_record_rows", columns: "(at)" },
  {
    name: "recall_documents_project",
    table: "recall_record_rows",
    columns: "(project, at) WHERE project IS NOT NULL",
  },
  {
    name: "recall_documents_chat",
    table: "recall_record_rows",
    columns: "(app_id, chat_id) WHERE app_id IS NOT NULL",
  },
  // Not a read index either: the records' ordinal key (history-v6.ts). No write looks it up, so
  // it needs no stand-in while deferred: each ordinal comes from recall_conversations.
  {
    name: "recall_records_ordinal",
    table: "recall_record_rows",
    columns: "(conversation_ref, ordinal)",
    unique: true,
  },
  {
    name: "recall_records_time",
    table: "recall_record_rows",
    columns: "(conversation_ref, at, ordinal, projection_version)",
  },
  { name: "recall_raw_chunks_source", table: "recall_raw_chunks", columns: "(source, id)" },
  { name: "recall_raw_chunks_conversation", table: "recall_raw_chunks", columns: "(conversation)" },
  { name: "recall_raw_chunks_time", table: "recall_raw_chunks", columns: "(first_at)" },
];

const create = (i: (typeof READ_INDEXES)[number], ifNotExists = "") =>
  `CREATE ${i.unique ? "UNIQUE " : ""}INDEX ${ifNotExists}${i.name} ON ${i.table} ${i.columns}`;

export const READ_INDEX_DEFINITIONS = READ_INDEXES.map((i) => create(i));

/**
 * Drops the read indexes of tables without rows (a first backfill, a reindex), and defers FTS5's
 * merges while there are no documents (store/fts-merge.ts); says whether it dropped any.
 */
export function dropReadIndexesIfEmpty(db: Db): boolean {
  const empty = new Map<string, boolean>();
  const isEmpty = (table: string): boolean => {
    let e = empty.get(table);
    if (e === undefined)
      empty.set(table, (e = db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() === undefined));
    return e;
  };
  const dropped = READ_INDEXES.filter((i) => isEmpty(i.table));
  if (dropped.length === 0) return false;
  db.transaction(() => {
    for (const i of dropped) db.exec(`DROP INDEX IF EXISTS ${i.name}`);
    if (isEmpty("recall_documents")) deferFtsMerges(db);
  })();
  present.delete(db);
  if (dropped.some((i) => i.name === DOCUMENT_KEY_INDEX)) deferDocumentKeys(db);
  return true;
}

/** Read indexes this connection knows exist (a writer's hot path checks here, not the schema). */
const present = new WeakMap<Db, Set<string>>();

/**
 * After a rolled-back transaction, an index this connection built inside it may be gone again:
 * the next restore asks the schema.
 */
export function forgetIndexState(db: Db): void {
  present.delete(db);
}

/**
 * Builds one read index now if a first load dropped it: the documents' key, which every document
 * write looks up, when no in-memory stand-in serves meanwhile or it cannot hold an id
 * (store/document-keys.ts).
 */
export function restoreReadIndex(db: Db, name: string): void {
  let known = present.get(db);
  if (known?.has(name)) return;
  const index = READ_INDEXES.find((i) => i.name === name);
  if (!index) throw new Error(`not a read index: ${name}`);
  db.exec(create(index, "IF NOT EXISTS "));
  if (name === DOCUMENT_KEY_INDEX) documentKeysIndexed(db);
  if (!known) present.set(db, (known = new Set()));
  known.add(name);
}

/**
 * Builds whichever read index is missing (after a first backfill, or one that was interrupted),
 * and merges the FTS5 segments such a backfill left unmerged.
 * The sort spills to a temporary file past an 8 MiB cache: with the writer's in-memory temp
 * store it held every sort run in memory (measured at 1M documents: +100 MB peak RSS, against
 * +9 MB this way, and no slower).
 */
export function ensureReadIndexes(db: Db): void {
  const missing = READ_INDEXES.filter(
    (i) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(i.name) === undefined,
  );
  if (missing.length === 0 && !ftsMergesDeferred(db)) return;
  const tempStore = db.pragma("temp_store", { simple: true }) as number;
  const cacheSize = db.pragma("cache_size", { simple: true }) as number;
  db.pragma("temp_store = FILE");
  db.pragma("cache_size = -8192");
  try {
    db.transaction(() => {
      for (const i of missing) {
        try {
          db.exec(create(i, "IF NOT EXISTS "));
        } catch (error) {
          // Two rows sharing a hit id would otherwise make every later writer fail to open the
          // index; a plain index serves the same lookups.
          if (!i.unique || (error as { code?: string }).code !== "SQLITE_CONSTRAINT_UNIQUE") throw error;
          db.exec(create({ ...i, unique: false }, "IF NOT EXISTS "));
        }
      }
    })();
    documentKeysIndexed(db);
    mergeDeferredFts(db);
  } finally {
    db.pragma(`temp_store = ${Math.trunc(tempStore)}`);
    db.pragma(`cache_size = ${Math.trunc(cacheSize)}`);
  }
}
