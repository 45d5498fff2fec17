import { describe, expect, it } from "vitest";
import { nextStretch } from "./term-stats-job.js";

describe("the vocabulary stretch the term statistics job reads a step", () => {
  it("moves towards 10 ms a step, at most doubling and at least quartering, within 16 and 2,000 terms", () => {
    expect(nextStretch(256, 5)).toBe(512); // twice as fast as the target: doubles
    expect(nextStretch(256, 0)).toBe(512); // no time measured: still only doubles
    expect(nextStretch(1_000, 20)).toBe(500);
    expect(nextStretch(2_000, 259)).toBe(500); // a stretch of common terms: a quarter
    expect(nextStretch(2_000, 1)).toBe(2_000);
    expect(nextStretch(16, 1_000)).toBe(16);
  });
});
