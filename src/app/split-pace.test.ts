import { describe, expect, it } from "vitest";
import { StepPace } from "./split-pace.js";

describe("the split's pace", () => {
  it("sizes chunks from each kind's cost, stops a step when its time is spent, and shrinks for a dear commit", () => {
    let now = 0;
    const pace = new StepPace(10, 2_000, () => now);
    const chunk = (key: string, msPerRow: number) => {
      const n = pace.rows(key);
      now += n * msPerRow;
      pace.took(key, n);
      return n;
    };
    pace.begin("copy");
    expect(chunk("cheap", 0.01)).toBe(4); // a kind not measured yet starts small
    const cheap = chunk("cheap", 0.01);
    expect(cheap).toBeGreaterThan(100);
    expect(chunk("dear", 1)).toBe(4);
    // Half of what is left of the budget at most, at the dear kind's cost.
    expect(chunk("dear", 1)).toBeLessThanOrEqual(2);
    while (!pace.spent()) chunk("dear", 1);
    expect(now).toBeLessThan(10 + 1 + 1e-9);
    // The commit after the chunks took as long again: the next copy step's chunks get half the time.
    now += 10;
    pace.end(now);
    const start = now;
    pace.begin("copy");
    while (!pace.spent()) chunk("dear", 0.5);
    expect(now - start).toBeLessThanOrEqual(6);
    // Another kind of step keeps the whole budget, and the row cap holds.
    const capped = new StepPace(1_000, 7, () => now);
    capped.begin("verify");
    let rows = 0;
    while (!capped.spent()) {
      const n = capped.rows("t");
      rows += n;
      now += n * 0.001;
      capped.took("t", n);
    }
    expect(rows).toBe(7);
  });
});
