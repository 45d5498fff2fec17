import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.js";

describe("conversation cursors", () => {
  it("round-trips what recall returns, with or without a high-water mark", () => {
    for (const position of [
      { at: 1_790_000_000_123, ordinal: 4 },
      { at: 0, ordinal: 0, seen: 17 },
    ])
      expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it("refuses anything else as a Validation error naming the field", () => {
    const good = encodeCursor({ at: 1_790_000_000_123, ordinal: 4 });
    const standard = Buffer.from("1790000000123.4").toString("base64");
    for (const bad of [`${good}!!!`, `${good}==`, "nope", "", standard === good ? "x" : standard])
      expect(() => decodeCursor(bad, "before")).toThrow(/^before: not a cursor/);
  });
});
