import { createHash, type Hash } from "node:crypto";
import { RecallError } from "../core/errors.js";
import {
  applyLogStep,
  dumpRows,
  ftsRowsAfter,
  lastLoggedSeq,
  LEGACY,
  setSplitMeta,
  splitTables,
  type Pace,
} from "../store/history-split.js";
import type { Db } from "../store/open.js";

/** One bounded step of the split, run by app/history-split.ts's stepper (timed, then a yield). */
export type Step = <T>(phase: "verify", work: (pace: Pace) => T) => Promise<T>;

/**
 * One value of a row in the canonical dump: its type and exact value (integers are BigInt,
 * blobs hex), so no two different rows serialize alike.
 */
function canonical(value: unknown): string {
  if (value === null) return "n";
  if (typeof value === "bigint") return `i${value}`;
  if (typeof value === "number") return `r${value}`;
  if (typeof value === "string") return `s${value.length}:${value}`;
  if (Buffer.isBuffer(value)) return `b${value.toString("hex")}`;
  throw new RecallError("Internal", `unexpected SQLite value of type ${typeof value}`);
}

/**
 * Counts and hashes one table in one schema: chunks in rowid order after the last rowid taken
 * (keyset pagination, never OFFSET), as many as the step's pace allows, a yield between steps.
 */
async function dumpTable(db: Db, schema: "main" | typeof LEGACY, table: string, step: Step) {
  const hash: Hash = createHash("sha256");
  const key = `${schema}.${table}`;
  let count = 0;
  let after = 0n;
  for (;;) {
    const more = await step("verify", (pace) => {
      for (;;) {
        const n = pace.rows(key);
        const got = dumpRows(db, schema, table, after, n);
        for (const row of got) hash.update(`${row.map(canonical).join("\u001f")}\n`);
        count += got.length;
        if (got.length > 0) after = got.at(-1)![0] as bigint;
        pace.took(key, got.length);
        if (got.length < n) return false;
        if (pace.spent()) return true;
      }
    });
    if (!more) break;
  }
  return { count, sha256: hash.digest("hex") };
}

/** FTS5 rows history.db holds, counted in steps. */
async function countIndexed(db: Db, step: Step): Promise<number> {
  let indexed = 0;
  let last = 0;
  for (;;) {
    const more = await step("verify", (pace) => {
      for (;;) {
        const n = pace.rows("fts");
        const got = ftsRowsAfter(db, last, n);
        indexed += got.n;
        if (got.last !== null) last = got.last;
        pace.took("fts", got.n);
        if (got.n < n) return false;
        if (pace.spent()) return true;
      }
    });
    if (!more) return indexed;
  }
}

/**
 * Verification over one snapshot of both files (a read transaction held across yields; a WAL
 * host keeps writing meanwhile): the log up to the snapshot is applied, then each table's count
 * and hash must be the legacy's, and every copied document must be in history.db's FTS5 index.
 * Recorded with the time when they all agree; else the first difference, in one line. Nothing of
 * it is recorded before the end: a split killed while verifying verifies again from the start on
 * resume (the copy itself resumes where it was).
 */
export async function verifySplit(db: Db, step: Step): Promise<{ reason?: string }> {
  db.exec("BEGIN");
  try {
    const through = lastLoggedSeq(db);
    while ((await step("verify", (pace) => applyLogStep(db, pace, through))) > 0);
    const counts: Record<string, number> = {};
    const hashes: Record<string, string> = {};
    for (const { name } of splitTables(db)) {
      const legacy = await dumpTable(db, LEGACY, name, step);
      const copy = await dumpTable(db, "main", name, step);
      const reason =
        legacy.count !== copy.count
          ? `${name}: ${copy.count} rows in history.db against ${legacy.count} in the legacy table`
          : legacy.sha256 !== copy.sha256
            ? `${name}: the SHA-256 of history.db's rows differs from the legacy table's (${copy.sha256.slice(0, 12)} against ${legacy.sha256.slice(0, 12)})`
            : undefined;
      if (reason !== undefined) {
        db.exec("ROLLBACK");
        return { reason };
      }
      counts[name] = legacy.count;
      hashes[name] = legacy.sha256;
    }
    const indexed = await countIndexed(db, step);
    if (indexed !== counts.recall_documents) {
      db.exec("ROLLBACK");
      return {
        reason: `recall_fts: ${indexed} documents indexed in history.db against ${counts.recall_documents ?? 0}`,
      };
    }
    setSplitMeta(db, "verified_counts", JSON.stringify(counts));
    setSplitMeta(db, "verified_hashes", JSON.stringify(hashes));
    setSplitMeta(db, "verified_at", new Date().toISOString());
    db.exec("COMMIT");
    return {};
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
