import type { Db } from "../store/open.js";
import { deleteDocuments } from "../store/record-rows.js";

/** Documents deleted per transaction by a yielding reset (the FTS delete trigger runs per row). */
export const RESET_CHUNK_ROWS = 5000;

/**
 * Forgets file registrations, cursors (checkpoints) and line counters of the named sources in
 * one short transaction. Retained records, raw chunks, session aliases and tombstones stay.
 */
export function resetCursors(db: Db, sources: readonly string[]): number {
  let checkpoints = 0;
  db.transaction(() => {
    for (const source of sources) {
      checkpoints += db.prepare("DELETE FROM recall_checkpoints WHERE source = ?").run(source).changes;
      db.prepare(
        "UPDATE recall_source_stats SET oversized = 0, malformed = 0, skipped = 0, unreadable = 0, discovered = 0 WHERE source = ?",
      ).run(source);
    }
  })();
  return checkpoints;
}

/** Deletes at most `maxRows` derived documents of the named sources; 0 once none are left. */
export function deleteDocumentsChunk(db: Db, sources: readonly string[], maxRows = RESET_CHUNK_ROWS): number {
  if (sources.length === 0) return 0;
  const marks = sources.map(() => "?").join(", ");
  return deleteDocuments(
    db,
    `id IN (SELECT id FROM recall_documents WHERE source IN (${marks}) LIMIT ?)`,
    ...sources,
    maxRows,
  );
}

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
      documents += deleteDocuments(db, "source = ?", source);
    }
    checkpoints = resetCursors(db, sources);
  })();
  return { documents, checkpoints };
}

/**
 * The same reset in bounded steps, yielding between them, for a process that keeps serving
 * requests (the broker): the cursors of `sources` first, then the documents of `documentsOf`
 * (some of them: a source whose documents the re-read rewrites in place keeps them) a chunk
 * per transaction.
 */
export async function resetDerivedYielding(
  db: Db,
  sources: readonly string[],
  documentsOf: readonly string[],
  onProgress?: (documents: number) => void,
  /** The process is closing: stop between chunks (the next start resets again). */
  shouldStop?: () => boolean,
): Promise<{ documents: number; checkpoints: number }> {
  const checkpoints = resetCursors(db, sources);
  let documents = 0;
  while (!shouldStop?.()) {
    const n = db.transaction(() => deleteDocumentsChunk(db, documentsOf))();
    if (n === 0) break;
    documents += n;
    onProgress?.(documents);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { documents, checkpoints };
}
