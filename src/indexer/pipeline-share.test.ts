import { describe, expect, it } from "vitest";
import { ProjectionShare, SHARE } from "./pipeline-share.js";

describe("ProjectionShare", () => {
  it("starts with the thread projecting every record", () => {
    const share = new ProjectionShare(3);
    expect(share.value).toBe(0);
    expect(share.cut(10)).toBe(10);
  });

  it("gives the writer more while it waits for ticks, up to its bound", () => {
    const share = new ProjectionShare();
    for (let starved = 1; starved <= 100; starved++) share.observe(starved, false);
    expect(share.value).toBeCloseTo(SHARE.max);
    expect(share.cut(10)).toBe(2);
  });

  it("takes it back while the thread waits for room, down to none", () => {
    const share = new ProjectionShare();
    for (let starved = 1; starved <= 4; starved++) share.observe(starved, false);
    expect(share.value).toBeCloseTo(4 * SHARE.step);
    for (let i = 0; i < 100; i++) share.observe(4, true);
    expect(share.value).toBe(0);
  });

  it("holds when neither side waited, or both did", () => {
    const share = new ProjectionShare();
    share.observe(1, false);
    share.observe(1, false);
    share.observe(2, true);
    expect(share.value).toBeCloseTo(SHARE.step);
  });
});
