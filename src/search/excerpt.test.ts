import { describe, expect, it } from "vitest";
import { excerpt } from "./excerpt.js";

describe("excerpts", () => {
  it("returns short text whole", () => {
    expect(excerpt("the capybara cache must expire hourly", ["capybara"], 14)).toBe(
      "the capybara cache must expire hourly",
    );
  });

  it("centres a window on the most distinct matches, marking cuts", () => {
    const text =
      `${"filler ".repeat(30)}the Paintings were painted near the harbor ${"tail ".repeat(30)}`.trim();
    const out = excerpt(text, ["paint*", "harbor"], 8);
    expect(out.startsWith("…")).toBe(true);
    expect(out.endsWith("…")).toBe(true);
    expect(out).toContain("Paintings were painted near the harbor");
  });

  it("folds case and diacritics like the index", () => {
    expect(excerpt(`${"x ".repeat(20)}Crème brûlée ${"y ".repeat(20)}`, ["creme"], 4)).toContain(
      "Crème brûlée",
    );
  });
});
