import type { Db } from "./open.js";
import { statement } from "./statements.js";

/**
 * Stands in for the documents' key index (source, source key) while a first backfill defers it
 * (store/read-indexes.ts): without it, looking a key up would scan the table. An open-addressing
 * table of 32-bit key hashes and document ids, side by side (a probe reads one place, not two),
 * 8 bytes a slot and at most 85 % full: 8 MiB up to 891k documents, 16 MiB up to 1.78M (at 70 %
 * it took 16 MiB from 734k). Linear probing that full reads some twenty adjacent slots for a key
 * that is not there, against one SQLite statement per document write. A hash only names
 * candidates, each checked against its row (a false one costs one primary-key read), so answers
 * are exact and rows deleted meanwhile are simply not found.
 */
class DocumentKeyTable {
  /** Slot i holds its hash at 2i and its document id at 2i + 1 (0: empty). */
  private slots = new Uint32Array(2 << 16);
  private size = 0;

  add(hash: number, id: number): void {
    if ((this.size + 1) * 20 > (this.slots.length / 2) * 17) this.grow();
    this.place(hash, id);
    this.size += 1;
  }

  /** The first document id hashed to `hash` that `matches` accepts, or 0. */
  find(hash: number, matches: (id: number) => boolean): number {
    const slots = this.slots;
    const mask = slots.length / 2 - 1;
    for (let i = slotOf(hash, mask); slots[2 * i + 1] !== 0; i = (i + 1) & mask) {
      if (slots[2 * i] === hash && matches(slots[2 * i + 1]!)) return slots[2 * i + 1]!;
    }
    return 0;
  }

  private place(hash: number, id: number): void {
    const slots = this.slots;
    const mask = slots.length / 2 - 1;
    let i = slotOf(hash, mask);
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = hash;
    slots[2 * i + 1] = id;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.place(old[i]!, old[i + 1]!);
  }
}

const slotOf = (hash: number, mask: number) => hash & mask;

/** A 32-bit hash of a document key (two multiply-xorshift lanes over its UTF-16 units, folded). */
function keyHash(source: string, key: string): number {
  let h1 = 0xdeadbeef ^ source.length;
  let h2 = 0x41c6ce57 ^ key.length;
  const mix = (code: number) => {
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  };
  for (let i = 0; i < source.length; i++) mix(source.charCodeAt(i));
  mix(0);
  for (let i = 0; i < key.length; i++) mix(key.charCodeAt(i));
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) >>> 0;
}

const tables = new WeakMap<Db, DocumentKeyTable>();

/** Ids past this do not fit a slot: the real index is built instead (read-indexes.ts). */
const MAX_ID = 0x7fffffff;

const FIND_DOCUMENT = `SELECT id, conversation FROM recall_documents WHERE source = ? AND source_key = ?`;
const DOCUMENT_BY_ID = `SELECT source, source_key AS key, conversation FROM recall_documents WHERE id = ?`;
const ALL_KEYS = `SELECT id, source, source_key AS key FROM recall_documents`;

export interface DocumentRef {
  id: number;
  conversation: string | null;
}

/** The key index was dropped on this connection: keys are looked up in memory from now on. */
export function deferDocumentKeys(db: Db): void {
  const table = new DocumentKeyTable();
  // Normally an empty table (a first load); an exact answer whatever it holds.
  for (const row of statement(db, ALL_KEYS).iterate() as Iterable<{
    id: number;
    source: string;
    key: string;
  }>)
    table.add(keyHash(row.source, row.key), row.id);
  tables.set(db, table);
}

/** Whether keys are looked up in memory on this connection (the index is deferred). */
export function documentKeysDeferred(db: Db): boolean {
  return tables.has(db);
}

/** The key index exists again on this connection. */
export function documentKeysIndexed(db: Db): void {
  tables.delete(db);
}

/** The document holding a (source, source key), through the index or its stand-in. */
export function findDocument(db: Db, source: string, key: string): DocumentRef | undefined {
  const table = tables.get(db);
  if (!table) return statement(db, FIND_DOCUMENT).get(source, key) as DocumentRef | undefined;
  let conversation: string | null = null;
  const id = table.find(keyHash(source, key), (candidate) => {
    const row = statement(db, DOCUMENT_BY_ID).get(candidate) as
      { source: string; key: string; conversation: string | null } | undefined;
    if (!row || row.source !== source || row.key !== key) return false;
    conversation = row.conversation;
    return true;
  });
  return id === 0 ? undefined : { id, conversation };
}

/**
 * Records a new document's key while the index is deferred. False when its id cannot be held:
 * the caller builds the index then.
 */
export function noteDocument(db: Db, source: string, key: string, id: number): boolean {
  const table = tables.get(db);
  if (!table) return true;
  if (id > MAX_ID) return false;
  table.add(keyHash(source, key), id);
  return true;
}
