import type { Db } from "./open.js";
import { statement } from "./statements.js";

/**
 * recall_fts is a contentless-delete FTS5 table (schema v10), and FTS5 never lowers the totals of
 * such a table: a deleted or rewritten row leaves its count and tokens in the averages record
 * (id 1 of recall_fts_data), so bm25's N and avgdl grow with every rewrite, and after a rebuild
 * that rewrote each row once they are double. The true totals are the docsize rows, which
 * deletes do remove: this module puts them back.
 */

const AVERAGES_ROWID = 1;

/** SQLite's varint: big-endian 7-bit groups, the 9th byte carries 8 bits. */
export function readVarint(buf: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buf[at + i];
    if (byte === undefined) return { value, next: at + i };
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  const last = buf[at + 8] ?? 0;
  return { value: value * 256 + last, next: at + 9 };
}

/** readVarint's inverse, for values below 2^56 (row and token counts). */
export function writeVarint(value: number): number[] {
  const groups: number[] = [];
  do {
    groups.unshift(value % 128);
    value = Math.floor(value / 128);
  } while (value > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g));
}

function varints(buf: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at < buf.length;) {
    const { value, next } = readVarint(buf, at);
    out.push(value);
    at = next;
  }
  return out;
}

/**
 * Rows that may be off before the totals are recounted: a share of the index, so a few
 * forgotten records do not cost a pass over every docsize row (0.5 s at a million rows).
 */
const DRIFT_SHARE = 0.01;
/** Below this many rows a recount is cheap: any drift is corrected. */
const SMALL_INDEX = 50_000;

export interface FtsTotalsRepair {
  /** bm25's N before and after. */
  rowsBefore: number;
  rows: number;
}

/**
 * Recounts the averages record from the docsize rows when its row count has drifted from theirs
 * (by more than DRIFT_SHARE, or at all on a small index); null when it had not. Writes in one
 * transaction, so a reader sees either the old totals or the new ones.
 */
export function repairFtsTotals(db: Db): FtsTotalsRepair | null {
  const averages = statement(db, "SELECT block FROM recall_fts_data WHERE id = ?").get(AVERAGES_ROWID) as
    { block: Buffer | null } | undefined;
  if (!averages?.block || averages.block.length === 0) return null;
  const recorded = varints(averages.block);
  const rowsBefore = recorded[0] ?? 0;
  const { n } = statement(db, "SELECT count(*) AS n FROM recall_fts_docsize").get() as { n: number };
  const drift = rowsBefore - n;
  if (drift === 0 || (n >= SMALL_INDEX && Math.abs(drift) <= n * DRIFT_SHARE)) return null;
  return db
    .transaction(() => {
      const columns = new Array<number>(Math.max(1, recorded.length - 1)).fill(0);
      let rows = 0;
      for (const { sz } of statement(db, "SELECT sz FROM recall_fts_docsize").iterate() as Iterable<{
        sz: Buffer | null;
      }>) {
        rows += 1;
        if (!sz) continue;
        let column = 0;
        for (let at = 0; at < sz.length; column++) {
          const { value, next } = readVarint(sz, at);
          columns[column] = (columns[column] ?? 0) + value;
          at = next;
        }
      }
      const block = Buffer.from([rows, ...columns].flatMap(writeVarint));
      // FTS5's shadow tables are read-only in defensive mode (better-sqlite3's default); this one
      // write of a record whose format FTS5 documents (fts5_storage.c) is the only exception.
      db.unsafeMode(true);
      try {
        db.prepare("UPDATE recall_fts_data SET block = ? WHERE id = ?").run(block, AVERAGES_ROWID);
      } finally {
        db.unsafeMode(false);
      }
      return { rowsBefore, rows };
    })
    .immediate();
}
