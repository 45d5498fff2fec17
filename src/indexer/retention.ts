import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/**
 * The raw retention bound (config `retention.rawMaxBytesPerSource`, compressed bytes per
 * source). When a source's retained raw chunks exceed it, its OLDEST chunks (first captured)
 * are deleted until it fits again; the pruned chunks and bytes are counted in the source's
 * coverage. Retained records and documents are kept: search and reads keep working, but
 * `recall export` of a conversation whose chunks were pruned returns only what is left, and a
 * rebuild after the CLI deleted such a file replays only the retained tail.
 */
const STORED = `SELECT raw_stored AS stored FROM recall_source_stats WHERE source = ?`;
const OLDEST = `SELECT id, stored, length FROM recall_raw_chunks WHERE source = ? ORDER BY id LIMIT 256`;
const DELETE = `DELETE FROM recall_raw_chunks WHERE id = ?`;
const COUNT = `UPDATE recall_source_stats SET raw_chunks = raw_chunks - @chunks, raw_bytes = raw_bytes - @bytes,
  raw_stored = raw_stored - @stored, pruned_chunks = pruned_chunks + @chunks, pruned_bytes = pruned_bytes + @stored
  WHERE source = @source`;

export function pruneRaw(db: Db, source: string, maxStored: number): { chunks: number; bytes: number } {
  const row = statement(db, STORED).get(source) as { stored: number } | undefined;
  let over = (row?.stored ?? 0) - maxStored;
  const pruned = { chunks: 0, bytes: 0 };
  if (over <= 0) return pruned;
  let raw = 0;
  while (over > 0) {
    const oldest = statement(db, OLDEST).all(source) as { id: number; stored: number; length: number }[];
    if (oldest.length === 0) break;
    for (const chunk of oldest) {
      if (over <= 0) break;
      statement(db, DELETE).run(chunk.id);
      over -= chunk.stored;
      pruned.chunks += 1;
      pruned.bytes += chunk.stored;
      raw += chunk.length;
    }
  }
  statement(db, COUNT).run({ source, chunks: pruned.chunks, bytes: raw, stored: pruned.bytes });
  return pruned;
}
