import type { Db } from "./open.js";
import { getMeta } from "./meta.js";
import { statement } from "./statements.js";
import { clearTermStats } from "./term-stats.js";

/**
 * A counter in recall_meta that changes whenever documents' text may have been rewritten in
 * place: a rebuild, or an embedded chat's documents (their rowid is the message id, so they
 * cannot move to a new one as ingest.ts's do). Term statistics assume rows they counted never
 * change (search/term-cache.ts carries them as the index grows): a cache compares this before
 * carrying anything, and the persisted statistics are dropped (the broker's idle job builds
 * them again).
 */
const KEY = "documents_rewritten";

export function readRewrites(db: Db): string | null {
  return getMeta(db, KEY) ?? null;
}

export function noteDocumentsRewritten(db: Db): void {
  db.transaction(() => {
    statement(
      db,
      `INSERT INTO recall_meta (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
    ).run(KEY);
    clearTermStats(db);
  })();
}
