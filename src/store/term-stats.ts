import { endianness } from "node:os";
import type { Db } from "./open.js";
import { hasTable, hasTableOnce, pluckedStatement, statement } from "./statements.js";
import { documentBody, RECORD_TEXT_COLUMN, type StoredBody } from "./document-text.js";
import { rowsHoldDocuments } from "./record-rows.js";
import { getMeta, setMeta } from "./meta.js";

/** One term's persisted statistics (schema v12, recall_term_lists). */
export interface StoredTermStats {
  term: string;
  /** Rows containing the term up to `through`. */
  df: number;
  /** The highest rowid when built. */
  through: number;
  /** Rows in the index when built. */
  builtRows: number;
  idf: number;
  avgdl: number;
  complete: boolean;
  /** Rows ascending (the planner's merge order). */
  ids: Float64Array;
  /** Each row's impact, parallel to ids. */
  impacts: Float64Array;
}

/** Whether the index has the table (a reader never migrates an older index). */
const hasListTable = (db: Db): boolean => hasTableOnce(db, "recall_term_lists");

/**
 * The lists' stored form (schema v12): ids as 32-bit unsigned integers, ascending; impacts as
 * 32-bit floats rounded up, so each stays an upper bound of the row's share (the planner only
 * bounds with them and scores rows itself). Half the bytes of 64-bit values (at 100k demo
 * messages 27 MiB instead of 54), and a list is ready to merge as read: no process sorts it.
 */
const MAX_ID = 0xffffffff;

function packIds(ids: Float64Array): Buffer {
  return littleEndianBytes(Uint32Array.from(ids));
}

function unpackIds(blob: Buffer): Float64Array {
  return Float64Array.from(littleEndian(blob, Uint32Array));
}

/**
 * A blob of little-endian 32-bit values as a typed array: one native copy into aligned memory (a
 * fresh process's first query decoded its lists value by value in 9 ms, 4 lists of 4,096).
 */
function littleEndian<T extends Uint32Array | Float32Array>(
  blob: Buffer,
  Type: { new (length: number): T },
): T {
  const values = new Type(blob.length / 4);
  const bytes = new Uint8Array(values.buffer);
  bytes.set(blob);
  if (!LITTLE_ENDIAN) for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  return values;
}

const LITTLE_ENDIAN = endianness() === "LE";

/** 32-bit values as little-endian bytes (the stored order on every platform). */
function littleEndianBytes(values: Uint32Array | Float32Array): Buffer {
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (!LITTLE_ENDIAN) for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  return bytes;
}

const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);

/** The smallest 32-bit float not below `x`. */
function float32Up(x: number): number {
  F32[0] = x;
  // One step in the bit pattern moves away from zero for a positive float, towards it for a negative.
  if (F32[0] < x) F32_BITS[0] = F32_BITS[0]! + (F32[0] >= 0 ? 1 : -1);
  return F32[0];
}

function packImpacts(impacts: Float64Array): Buffer {
  const values = new Float32Array(impacts.length);
  for (let i = 0; i < impacts.length; i++) values[i] = float32Up(impacts[i]!);
  return littleEndianBytes(values);
}

function unpackImpacts(blob: Buffer): Float64Array {
  return Float64Array.from(littleEndian(blob, Float32Array));
}

export function readTermStats(db: Db, term: string): StoredTermStats | undefined {
  if (!hasListTable(db)) return undefined;
  const row = statement(
    db,
    `SELECT term, df, through, built_rows AS builtRows, idf, avgdl, complete, ids, impacts
     FROM recall_term_lists WHERE term = ?`,
  ).get(term) as
    | (Omit<StoredTermStats, "complete" | "ids" | "impacts"> & {
        complete: number;
        ids: Buffer;
        impacts: Buffer;
      })
    | undefined;
  if (!row) return undefined;
  return {
    ...row,
    complete: row.complete === 1,
    ids: unpackIds(row.ids),
    impacts: unpackImpacts(row.impacts),
  };
}

export function writeTermStats(db: Db, s: StoredTermStats): void {
  // Rowids past 32 bits are never reached in practice; such a list is computed when used.
  if (s.ids.length > 0 && s.ids[s.ids.length - 1]! > MAX_ID) return;
  statement(
    db,
    `INSERT OR REPLACE INTO recall_term_lists (term, df, through, built_rows, idf, avgdl, complete, ids, impacts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    s.term,
    s.df,
    s.through,
    s.builtRows,
    s.idf,
    s.avgdl,
    s.complete ? 1 : 0,
    packIds(s.ids),
    packImpacts(s.impacts),
  );
}

/** Drops every stored term's statistics (they no longer describe the documents). */
export function clearTermStats(db: Db): void {
  if (hasListTable(db)) statement(db, "DELETE FROM recall_term_lists").run();
}

/**
 * The index the broker's idle job last finished a plan for (app/term-stats-job.ts): its rows and
 * highest rowid, the rewrite counter then, and how many lists it left stored. A new process
 * whose index still matches has nothing to plan: the plan reads the whole vocabulary, 1.0–1.4 s
 * of work at 1M messages, which every broker start used to repeat.
 */
export interface TermStatsPlan {
  rows: number;
  top: number;
  rewrites: string | null;
  lists: number;
}

const PLAN_KEY = "term_stats_plan";

export function readTermStatsPlan(db: Db): TermStatsPlan | null {
  const value = getMeta(db, PLAN_KEY);
  if (value === undefined) return null;
  try {
    const plan = JSON.parse(value) as TermStatsPlan;
    // A plan whose lists are gone (a migration, a table emptied) plans again.
    return plan.lists === countTermLists(db) ? plan : null;
  } catch {
    return null;
  }
}

export function writeTermStatsPlan(db: Db, plan: Omit<TermStatsPlan, "lists">): void {
  setMeta(db, PLAN_KEY, JSON.stringify({ ...plan, lists: countTermLists(db) }));
}

function countTermLists(db: Db): number {
  if (!hasListTable(db)) return 0;
  return pluckedStatement(db, "SELECT count(*) FROM recall_term_lists").get() as number;
}

/** When a term's stored statistics were built: the index's rows then, and its highest rowid. */
export interface StoredTermMark {
  builtRows: number;
  through: number;
}

/** When each stored term was built. */
export function storedTermRows(db: Db): Map<string, StoredTermMark> {
  if (!hasListTable(db)) return new Map();
  const rows = statement(
    db,
    "SELECT term, built_rows AS builtRows, through FROM recall_term_lists",
  ).all() as {
    term: string;
    builtRows: number;
    through: number;
  }[];
  return new Map(rows.map((r) => [r.term, { builtRows: r.builtRows, through: r.through }]));
}

/** The `n` stored words (not stem prefixes) found in the most documents, most frequent first. */
export function mostFrequentStoredWords(db: Db, n: number): string[] {
  if (!hasListTable(db)) return [];
  return pluckedStatement(
    db,
    "SELECT term FROM recall_term_lists WHERE substr(term, -1) <> '*' ORDER BY df DESC LIMIT ?",
  ).all(n) as string[];
}

/** A stretch of recall_fts's vocabulary: index terms in order, with the rows holding each. */
export interface VocabularyStretch {
  terms: { term: string; rows: number }[];
  /** The last term read; null once the vocabulary is read to its end. */
  last: string | null;
}

/**
 * Up to `limit` index terms after `after`, in term order, through an fts5vocab table in the
 * connection's temp schema (FTS5 counts a term's rows by reading its postings, so a stretch
 * costs about what its terms hold: the whole vocabulary of 1M messages, 0.4 s, is read in
 * stretches). Nothing when the index has no FTS5 table.
 */
export function vocabularyAfter(db: Db, after: string, limit: number): VocabularyStretch {
  if (!hasTable(db, "recall_fts_data")) return { terms: [], last: null };
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_vocab USING fts5vocab(main, recall_fts, row)");
  const terms = statement(
    db,
    "SELECT term, doc AS rows FROM temp.recall_fts_vocab WHERE term > ? ORDER BY term LIMIT ?",
  ).all(after, limit) as { term: string; rows: number }[];
  return { terms, last: terms.length < limit ? null : terms[terms.length - 1]!.term };
}

/** Bodies of up to `n` documents spread over the id range (a sample of the index's vocabulary). */
export function sampleBodies(db: Db, n: number): string[] {
  const table = rowsHoldDocuments(db) ? "recall_record_rows" : "recall_documents";
  const range = {
    lo: pluckedStatement(db, `SELECT min(id) FROM ${table}`).get() as number | null,
    hi: pluckedStatement(db, `SELECT max(id) FROM ${table}`).get() as number | null,
  };
  if (range.lo === null || range.hi === null) return [];
  const at = statement(
    db,
    `SELECT d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d WHERE d.id >= ? ORDER BY d.id LIMIT 1`,
  );
  const out: string[] = [];
  const span = range.hi - range.lo + 1;
  for (let i = 0; i < n; i++) {
    // Evenly spaced, deterministic: the same index gives the same sample.
    const row = at.get(range.lo + Math.floor((i * span) / n)) as StoredBody | undefined;
    if (row !== undefined) out.push(documentBody(row));
  }
  return out;
}
