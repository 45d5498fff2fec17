import { describe, expect, it } from "vitest";
import { PipelineShare, SHARE } from "./pipeline-share.js";

describe("PipelineShare", () => {
  it("starts with the writer projecting half the records, the thread compressing every chunk", () => {
    const share = new PipelineShare(3);
    expect(share.value).toBe(SHARE.start);
    expect(share.cut(10)).toBe(5);
    expect(share.compressCut(10)).toBe(10);
  });

  it("with a fixed share, leaves it where it is whoever waits", () => {
    const share = new PipelineShare(0, 0);
    for (let starved = 1; starved <= 20; starved++) share.observe(starved, false);
    expect(share.value).toBe(0);
    expect(share.cut(10)).toBe(10);
  });

  it("gives the writer more while it waits for ticks: records first, then raw chunks, up to its bound", () => {
    const share = new PipelineShare();
    for (let starved = 1; starved <= 10; starved++) share.observe(starved, false);
    expect(share.value).toBeCloseTo(1);
    expect(share.cut(10)).toBe(0);
    expect(share.compressCut(10)).toBe(10);
    for (let starved = 11; starved <= 20; starved++) share.observe(starved, false);
    expect(share.compressCut(10)).toBe(5);
    for (let starved = 21; starved <= 100; starved++) share.observe(starved, false);
    expect(share.value).toBeCloseTo(SHARE.max);
    expect(share.compressCut(10)).toBe(0);
  });

  it("takes it back while the thread waits for room, down to none", () => {
    const share = new PipelineShare();
    for (let starved = 1; starved <= 4; starved++) share.observe(starved, false);
    expect(share.value).toBeCloseTo(SHARE.start + 4 * SHARE.step);
    expect(share.cut(10)).toBe(3);
    for (let i = 0; i < 100; i++) share.observe(4, true);
    expect(share.value).toBe(0);
  });

  it("holds when neither side waited, or both did", () => {
    const share = new PipelineShare();
    share.observe(1, false);
    share.observe(1, false);
    share.observe(2, true);
    expect(share.value).toBeCloseTo(SHARE.start + SHARE.step);
  });
});
