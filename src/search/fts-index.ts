import type { Db } from "../store/open.js";
import { readVarint } from "../store/fts-totals.js";
import { statement } from "../store/statements.js";

/**
 * Read-only views of the FTS5 index's own bookkeeping (recall_fts_data, recall_fts_docsize), the
 * numbers FTS5's bm25() is computed from: the row count and token totals behind avgdl, each
 * row's length in tokens, and a generation key that changes whenever the index does.
 *
 * Formats (SQLite fts5_index.c / fts5_storage.c): the averages record (id 1) is a varint row
 * count followed by one varint token total per column; the structure record (id 10) changes on
 * every flush of new terms (its write counter increments); a docsize row is one varint per column.
 */

const AVERAGES_ROWID = 1;
const STRUCTURE_ROWID = 10;

/** Sum of a docsize blob's per-column token counts: the D of bm25. */
export function docsizeTotal(blob: Uint8Array | null): number {
  if (!blob) return 0;
  let total = 0;
  for (let at = 0; at < blob.length;) {
    const { value, next } = readVarint(blob, at);
    total += value;
    at = next;
  }
  return total;
}

export interface FtsTotals {
  /** Rows in the index (bm25's N). */
  rows: number;
  /** Tokens in every column of every row. */
  tokens: number;
  /** bm25's avgdl, computed as FTS5 does: (double) tokens / (double) rows. */
  avgdl: number;
  /** Changes whenever the index's content changes (structure record and averages). */
  generation: string;
}

/** The index totals bm25() uses, and a generation key for caches derived from the index. */
export function ftsTotals(db: Db): FtsTotals {
  const rows = statement(db, "SELECT id, block FROM recall_fts_data WHERE id IN (?, ?)").all(
    AVERAGES_ROWID,
    STRUCTURE_ROWID,
  ) as { id: number; block: Buffer | null }[];
  const averages = rows.find((r) => r.id === AVERAGES_ROWID)?.block ?? null;
  const structure = rows.find((r) => r.id === STRUCTURE_ROWID)?.block ?? null;
  let count = 0;
  let tokens = 0;
  if (averages && averages.length > 0) {
    const first = readVarint(averages, 0);
    count = first.value;
    for (let at = first.next; at < averages.length;) {
      const { value, next } = readVarint(averages, at);
      tokens += value;
      at = next;
    }
  }
  return {
    rows: count,
    tokens,
    avgdl: count > 0 ? tokens / count : 0,
    generation: `${averages?.toString("hex") ?? ""}/${structure?.toString("hex") ?? ""}`,
  };
}
