import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { eraseDeleted } from "./erase.js";
import { openDatabase } from "./open.js";

describe("eraseDeleted", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("says the rewrite failed instead of throwing, and erases once it can", () => {
    const t = tempDir("recall-erase-");
    cleanup = t.cleanup;
    const file = path.join(t.dir, "x.db");
    const db = openDatabase(file);
    db.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('a'), ('b'), ('c')");
    // Another writer holding the lock makes VACUUM fail, as a full disk does (SQLITE_FULL).
    const other = openDatabase(file);
    other.exec("BEGIN IMMEDIATE");
    db.pragma("busy_timeout = 0");
    const failed = eraseDeleted(db);
    expect(failed.vacuumFailed).toMatch(/locked|busy/i);
    other.exec("ROLLBACK");
    other.close();
    expect(eraseDeleted(db)).toEqual({ walTruncated: true });
    db.close();
  });
});
