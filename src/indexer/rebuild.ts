import type { Db } from "../store/open.js";

/**
 * Resets what a rebuild re-derives — documents, checkpoints (file registrations and cursors)
 * and line counters — for the named sources, keeping retained records, raw chunks, session
 * aliases and tombstones. The next backfill re-reads every source file that still exists and
 * replays the retained raw bytes of files the CLI deleted, through the same parsers, so the
 * rebuilt index matches a first index; tombstones keep forgotten history out.
 */
export function resetDerived(db: Db, sources: readonly string[]): { documents: number; checkpoints: number } {
  let documents = 0;
  let checkpoints = 0;
  db.transaction(() => {
    for (const source of sources) {
      documents += db.prepare("DELETE FROM recall_documents WHERE source = ?").run(source).changes;
      checkpoints += db.prepare("DELETE FROM recall_checkpoints WHERE source = ?").run(source).changes;
      db.prepare(
        "UPDATE recall_source_stats SET oversized = 0, malformed = 0, skipped = 0, discovered = 0 WHERE source = ?",
      ).run(source);
    }
  })();
  return { documents, checkpoints };
}
