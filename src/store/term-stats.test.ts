import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import { readTermStats, storedTermRows, writeTermStats, type StoredTermStats } from "./term-stats.js";

const stats = (ids: number[], impacts: number[], complete = false): StoredTermStats => ({
  term: "session",
  df: 9000,
  through: 70_000,
  builtRows: 68_000,
  idf: 1.25,
  avgdl: 31.5,
  complete,
  ids: Float64Array.from(ids),
  impacts: Float64Array.from(impacts),
});

describe("stored term statistics", () => {
  const store = tempHistoryStores();

  it("keep a list's ids ascending and exact, and each impact a bound no lower than it was", async () => {
    const { db } = await store();
    const impacts = [3.141592653589793, 0.1, 2.718281828459045, 1e-7, 7.000000000000001];
    writeTermStats(db, stats([5, 17, 4096, 65_537, 4_000_000_000], impacts));
    const read = readTermStats(db, "session")!;
    expect([...read.ids]).toEqual([5, 17, 4096, 65_537, 4_000_000_000]);
    for (const [i, impact] of impacts.entries()) {
      expect(read.impacts[i]).toBeGreaterThanOrEqual(impact);
      expect(read.impacts[i]! - impact).toBeLessThanOrEqual(impact * 2 ** -23);
    }
    expect(read).toMatchObject({ df: 9000, through: 70_000, builtRows: 68_000, complete: false });
    expect(storedTermRows(db).get("session")).toEqual({ builtRows: 68_000, through: 70_000 });
    // An empty, complete list round-trips too.
    writeTermStats(db, { ...stats([], [], true), term: "rare" });
    expect(readTermStats(db, "rare")).toMatchObject({ complete: true, ids: new Float64Array(0) });
  });

  it("leave a list with rowids past 32 bits to be computed when used", async () => {
    const { db } = await store();
    writeTermStats(db, stats([1, 2 ** 33], [1, 1]));
    expect(readTermStats(db, "session")).toBeUndefined();
  });
});
