import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { collectGarbage } from "./heap.js";

describe("collectGarbage", () => {
  it("leaves --expose-gc as it found it (a code cache is checked against the flags it was made under)", () => {
    expect(runInNewContext("typeof gc")).toBe("undefined");
    collectGarbage();
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });
});
