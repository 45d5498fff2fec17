import { deleteMeta, getMeta } from "./meta.js";
import type { Db } from "./open.js";
import { hasTable, pluckedStatement, statement } from "./statements.js";

/**
 * FTS5 segment merging in bounded steps. By default FTS5 merges segments (automerge) inside the
 * transaction that flushes new terms, and a crisis merge of a whole level can take far longer
 * than the batch that triggered it (143 ms at 1M chat messages). An index using this policy
 * turns automerge off and raises crisismerge, and its indexer calls mergeStep() between
 * batches: each step writes about MERGE_STEP_PAGES pages of merged segments.
 *
 * FTS5 accepts configuration values only as SQL integers (better-sqlite3 binds a JS number as a
 * REAL), so the values are literals.
 */

/**
 * Each step resumes the merge under way, seeking into every segment it merges again: at 16 pages
 * a step that resumption was a large part of the work. At 1M chat messages the embedded indexer
 * ran at 23,696 and 23,352 msg/s with 64 against 21,251 and 20,303 with 16 (alternating runs),
 * its longest step 24–26 ms against 33–34 ms; 128 gave 22,067 msg/s and a 39 ms step.
 */
export const MERGE_STEP_PAGES = 64;
/** Segments on one level before FTS5 merges them regardless (a backstop if steps fall behind). */
export const CRISIS_MERGE = 64;

/** SQL that installs the policy (a migration step: it changes how the index is maintained). */
export const BOUNDED_MERGE_POLICY_SQL = `
  INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 0);
  INSERT INTO recall_fts (recall_fts, rank) VALUES ('crisismerge', ${CRISIS_MERGE});
`;

/**
 * Segments a level of an embedded index gathers before a merge step merges them (FTS5's
 * `usermerge`, 4 by default, 16 at most). Each merge rewrites what it merges, so merging more
 * segments at a time rewrites the postings fewer times over: at 1M chat messages the embedded
 * indexer ran at 23,360 and 23,473 msg/s with 16 against 21,945 and 21,840 with 4 (alternating
 * runs), its longest merge step 18–20 against 27–115 ms. Searches read more segments: search_chats
 * warm p95 for common words 16.0 against 12.6 ms (mixed 8.7 against 7.9), well inside their bounds.
 */
export const EMBEDDED_USERMERGE = 16;

/** SQL that merges `EMBEDDED_USERMERGE` segments at a time (an embedded index's migration step). */
export const EMBEDDED_USERMERGE_SQL = `INSERT INTO recall_fts (recall_fts, rank) VALUES ('usermerge', ${EMBEDDED_USERMERGE})`;

/**
 * One bounded merge step; true when it merged anything (so another step may be due). Only
 * levels holding at least FTS5's `usermerge` segments are merged (4 in history.db, 16 in an
 * embedded index), as automerge would.
 * `pages`: about how many pages it writes (the split sizes it to its step's time).
 */
export function mergeStep(db: Db, pages = MERGE_STEP_PAGES): boolean {
  const changes = pluckedStatement(db, "SELECT total_changes()");
  const start = changes.get() as number;
  const n = Math.max(1, Math.floor(pages));
  statement(db, `INSERT INTO recall_fts (recall_fts, rank) VALUES ('merge', ${n})`).run();
  // The command itself counts as one change; more means segments were written.
  return (changes.get() as number) - start > 1;
}

/**
 * crisismerge while the history.db split copies: FTS5 merges a level inside the insert that
 * flushes its crisismerge-th segment, a merge of the whole level on the host's thread. FTS5 holds
 * at most 2,000 segments in all, so the split keeps the count below SPLIT_MAX_SEGMENTS (merging
 * off-thread when it gets there) and this never fires.
 */
export const COPY_CRISIS_MERGE = 1999;

/** Sets FTS5's crisismerge of `schema`.recall_fts (an SQL integer literal, as FTS5 requires). */
export function setCrisisMerge(db: Db, value: number, schema = "main"): void {
  db.exec(`INSERT INTO ${schema}.recall_fts (recall_fts, rank) VALUES ('crisismerge', ${Math.floor(value)})`);
}

/** One level of an FTS5 index: its segments, and whether a merge of them into the next is under way. */
export interface FtsLevel {
  segments: number;
  merging: boolean;
}

/**
 * recall_fts's levels, from FTS5's structure record (rowid 10 of its data table): a 4-byte
 * cookie, an optional 4-byte version-2 marker (contentless-delete tables), varints for the
 * levels, the segments and the write counter, then per level the segments an incremental merge
 * has taken in (nMerge) and its segments, each a segid and first and last page (five more varints
 * in version 2). One row read: cheap enough after every copy step.
 */
export function ftsLevels(db: Db, schema = "main"): FtsLevel[] {
  const block = pluckedStatement(db, `SELECT block FROM ${schema}.recall_fts_data WHERE id = 10`).get() as
    Buffer | undefined;
  if (!block || block.length < 6) return [];
  const v2 = block.length >= 8 && block.readUInt32BE(4) === 0xff000001;
  let i = v2 ? 8 : 4;
  // SQLite's varint: up to 8 bytes of 7 bits, a ninth of 8 (only the write counter gets that long).
  const varint = () => {
    let value = 0;
    for (let n = 0; n < 9 && i < block.length; n++) {
      const byte = block[i++]!;
      if (n === 8) return value * 256 + byte;
      value = value * 128 + (byte & 0x7f);
      if (byte < 0x80) break;
    }
    return value;
  };
  const levels = varint();
  varint(); // segments in all
  varint(); // write counter
  const out: FtsLevel[] = [];
  for (let l = 0; l < levels && i < block.length; l++) {
    const merging = varint() > 0;
    const segments = varint();
    for (let s = 0; s < segments * (v2 ? 8 : 3); s++) varint();
    out.push({ segments, merging });
  }
  return out;
}

/** Segments in recall_fts. */
export function ftsSegments(db: Db, schema = "main"): number {
  return ftsLevels(db, schema).reduce((sum, level) => sum + level.segments, 0);
}

/**
 * The slots a lookup of a row not deleted probes, on average, in recall_fts's tombstone hashes
 * (the worst segment's). contentless-delete FTS5 checks every row it reads against the
 * tombstones of the row's segment: page rowid % pages, slot (rowid / pages) % slots, linear
 * probing to an empty slot. Deleted rowids in a run (a forgotten session, rows rewritten
 * together) fill runs of slots, and every lookup landing in one walks it: at 1M messages, 1,728
 * consecutive deletes made each lookup probe 30 slots and counting a common term's rows take
 * 44 ms instead of 9. A page: a key-size byte, three bytes, the entry count (u32), then slots.
 */
export function tombstoneProbes(db: Db): number {
  const pages = pluckedStatement(
    db,
    // Tombstone pages are keyed as segments 65,536 above their own (rowid 2^53 and up).
    "SELECT id >> 37 AS segment, block FROM recall_fts_data WHERE id >= 9007199254740992",
  )
    .raw()
    .all() as [number, Buffer][];
  const perSegment = new Map<number, { pages: number; probes: number }>();
  for (const [segment, block] of pages) {
    const s = perSegment.get(segment) ?? { pages: 0, probes: 0 };
    s.pages++;
    s.probes += pageProbes(block);
    perSegment.set(segment, s);
  }
  let worst = 0;
  for (const s of perSegment.values()) worst = Math.max(worst, s.probes / s.pages);
  return worst;
}

/** One tombstone page's average probes per lookup: Σ over slots of the run left from it, ÷ slots. */
function pageProbes(block: Buffer): number {
  const keySize = block[0] === 8 ? 8 : 4;
  const slots = Math.floor((block.length - 8) / keySize);
  if (slots <= 0) return 0;
  const full = (i: number) =>
    keySize === 4 ? block.readUInt32BE(8 + i * 4) !== 0 : block.readBigUInt64BE(8 + i * 8) !== 0n;
  let probes = 0;
  let run = 0;
  let first = -1;
  for (let i = 0; i < slots; i++) {
    if (full(i)) run++;
    else {
      if (first < 0) first = run;
      probes += (run * (run + 1)) / 2;
      run = 0;
    }
  }
  // The hash wraps: the last run continues into the first.
  if (first < 0) return slots;
  const wrapped = run + first;
  probes += (wrapped * (wrapped + 1)) / 2 - (first * (first + 1)) / 2;
  return probes / slots;
}

/** Average probes past which rewriting the index (which drops its tombstones) is due. */
export const REWRITE_PROBES = 2;

/** Whether deleted rows' tombstones slow every read enough to rewrite the index (tombstoneProbes). */
export function ftsRewriteDue(db: Db): boolean {
  return hasFts(db) && tombstoneProbes(db) > REWRITE_PROBES;
}

/** FTS5's `usermerge`: a 'merge' command merges a level once it holds this many segments. */
const USERMERGE = 4;

/**
 * Whether recall_fts has merging left to do: a merge under way, or a level a 'merge' command
 * would merge. FTS5's automerge advances a merge by about the pages each write adds, so after a
 * first load's 'optimize' a trickle of new sessions can leave the whole index half merged for
 * days, every term's rows then read from two large segments: at 1M messages, ranking "update
 * AND get AND file" took 60 ms so, 20 ms merged.
 */
export function ftsMergePending(db: Db): boolean {
  if (!hasFts(db)) return false;
  return ftsLevels(db).some((level) => level.merging || level.segments >= USERMERGE);
}

/** recall_meta's note that a first load turned FTS5's automerge off (history.db only). */
const DEFERRED_META = "fts_merges_deferred";
/** FTS5's own defaults, which history.db keeps outside a first load. */
const DEFAULT_AUTOMERGE = 4;
const DEFAULT_CRISISMERGE = 16;
/** Below FTS5's ceiling of 2,000 segments a level: a first load's flushes are never merged. */
const FIRST_LOAD_CRISISMERGE = 1999;
/**
 * Bytes of pending terms past which FTS5 flushes a segment (its `hashsize`, 1 MiB by default,
 * which a first load keeps outside). Each group's commit flushes one segment anyway; the larger
 * pending hash halves the segments a first load leaves and its closing 'optimize' merges (1M demo
 * messages: 231–233 against 443–446, the 'optimize' 1.69–1.94 s in 14 runs against 2.03–2.26 s in 12).
 */
const DEFAULT_HASHSIZE = 1024 * 1024;
const FIRST_LOAD_HASHSIZE = 8 * 1024 * 1024;

function hasFts(db: Db): boolean {
  return hasTable(db, "recall_fts_config");
}

/**
 * A first backfill's FTS5 merges, deferred to its end. With automerge on, each flushed segment
 * is merged up level by level while the index grows, so a first load rewrites its postings
 * several times over. Measured on a 1M-message first load: 9.47 GB written before, 8.80 GB with
 * the merges deferred (the closing 'optimize' took 1.2 s), and 0 to 11 % less wall time (median
 * 8 %) in five comparisons of alternating runs. Called inside the transaction that drops the read indexes: the note
 * in recall_meta commits with the setting, so a writer opening after a load killed before its
 * end merges (mergeDeferredFts).
 */
export function deferFtsMerges(db: Db): void {
  if (!hasFts(db)) return;
  db.exec(`
    INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', 0);
    INSERT INTO recall_fts (recall_fts, rank) VALUES ('crisismerge', ${FIRST_LOAD_CRISISMERGE});
    INSERT INTO recall_fts (recall_fts, rank) VALUES ('hashsize', ${FIRST_LOAD_HASHSIZE});
    INSERT OR REPLACE INTO recall_meta (key, value) VALUES ('${DEFERRED_META}', '1');
  `);
}

export function ftsMergesDeferred(db: Db): boolean {
  return getMeta(db, DEFERRED_META) !== undefined;
}

/**
 * After a first load (or one killed before its end): FTS5's default merging again, and every
 * segment the load flushed merged into one ('optimize': about 1 s at 1M documents, in bounded
 * memory). Returns whether there was anything to do.
 */
export function mergeDeferredFts(db: Db): boolean {
  if (!ftsMergesDeferred(db)) return false;
  db.transaction(() => {
    if (hasFts(db)) {
      db.exec(`
        INSERT INTO recall_fts (recall_fts, rank) VALUES ('automerge', ${DEFAULT_AUTOMERGE});
        INSERT INTO recall_fts (recall_fts, rank) VALUES ('crisismerge', ${DEFAULT_CRISISMERGE});
        INSERT INTO recall_fts (recall_fts, rank) VALUES ('hashsize', ${DEFAULT_HASHSIZE});
        INSERT INTO recall_fts (recall_fts) VALUES ('optimize');
      `);
    }
    deleteMeta(db, DEFERRED_META);
  })();
  return true;
}
