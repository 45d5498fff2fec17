import { describe, expect, it } from "vitest";
import { BestFirst } from "./best-first.js";

describe("BestFirst", () => {
  it("takes slots in the order of a full sort, a batch at a time, ties by lower slot", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    // Few distinct keys, so ties are common.
    const key = Float64Array.from({ length: 3000 }, () => Math.floor(random() * 50) / 4);
    const slots = [...key.keys()].filter(() => random() < 0.7);
    const expected = [...slots].sort((a, b) => key[b]! - key[a]! || a - b);

    const queue = new BestFirst(slots, key);
    const taken: number[] = [];
    for (let size = 1; queue.remaining > 0; size = Math.min(300, size * 2)) {
      const batch = queue.take(size);
      expect(batch.length).toBe(Math.min(size, expected.length - taken.length));
      taken.push(...batch);
    }
    expect(taken).toEqual(expected);
    expect(queue.take(5)).toEqual([]);
  });

  it("takes nothing from no slots", () => {
    const queue = new BestFirst([], new Float64Array(0));
    expect(queue.remaining).toBe(0);
    expect(queue.take(3)).toEqual([]);
  });
});
