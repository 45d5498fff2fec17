import type { Db } from "./open.js";
import { statement } from "./statements.js";
import { documentBody, RECORD_TEXT_COLUMN, RECORD_TEXT_JOIN, type StoredBody } from "./document-text.js";

/** One term's persisted statistics (schema v3, recall_term_stats). */
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
  ids: number[];
  impacts: number[];
}

const present = new WeakMap<Db, boolean>();

/** Whether the index has the table (a reader never migrates an older index). */
function hasTable(db: Db): boolean {
  let has = present.get(db);
  if (has === undefined) {
    has =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_term_stats'").get() !==
      undefined;
    present.set(db, has);
  }
  return has;
}

const pack = (values: readonly number[]) => Buffer.from(new Float64Array(values).buffer);
const unpack = (blob: Buffer) =>
  Array.from(new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)));

export function readTermStats(db: Db, term: string): StoredTermStats | undefined {
  if (!hasTable(db)) return undefined;
  const row = statement(
    db,
    `SELECT term, df, through, built_rows AS builtRows, idf, avgdl, complete, ids, impacts
     FROM recall_term_stats WHERE term = ?`,
  ).get(term) as
    | (Omit<StoredTermStats, "complete" | "ids" | "impacts"> & {
        complete: number;
        ids: Buffer;
        impacts: Buffer;
      })
    | undefined;
  if (!row) return undefined;
  return { ...row, complete: row.complete === 1, ids: unpack(row.ids), impacts: unpack(row.impacts) };
}

export function writeTermStats(db: Db, s: StoredTermStats): void {
  statement(
    db,
    `INSERT OR REPLACE INTO recall_term_stats (term, df, through, built_rows, idf, avgdl, complete, ids, impacts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    s.term,
    s.df,
    s.through,
    s.builtRows,
    s.idf,
    s.avgdl,
    s.complete ? 1 : 0,
    pack(s.ids),
    pack(s.impacts),
  );
}

/** Drops every stored term's statistics (they no longer describe the documents). */
export function clearTermStats(db: Db): void {
  if (hasTable(db)) statement(db, "DELETE FROM recall_term_stats").run();
}

/** When a term's stored statistics were built: the index's rows then, and its highest rowid. */
export interface StoredTermMark {
  builtRows: number;
  through: number;
}

/** When each stored term was built. */
export function storedTermRows(db: Db): Map<string, StoredTermMark> {
  if (!hasTable(db)) return new Map();
  const rows = statement(
    db,
    "SELECT term, built_rows AS builtRows, through FROM recall_term_stats",
  ).all() as {
    term: string;
    builtRows: number;
    through: number;
  }[];
  return new Map(rows.map((r) => [r.term, { builtRows: r.builtRows, through: r.through }]));
}

/** Bodies of up to `n` documents spread over the id range (a sample of the index's vocabulary). */
export function sampleBodies(db: Db, n: number): string[] {
  const range = statement(db, "SELECT min(id) AS lo, max(id) AS hi FROM recall_documents").get() as {
    lo: number | null;
    hi: number | null;
  };
  if (range.lo === null || range.hi === null) return [];
  const at = statement(
    db,
    `SELECT d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d ${RECORD_TEXT_JOIN} WHERE d.id >= ? ORDER BY d.id LIMIT 1`,
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
