import { describe, expect, it } from "vitest";
import { EXCERPT_MAX_CHARS, excerpt, shortenExcerpt } from "./excerpt.js";

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

  const length = (s: string) => Array.from(s).length;
  // With the u flag, a surrogate matches only when it is not half of a pair.
  const wellFormed = (s: string) => !/[\uD800-\uDFFF]/u.test(s);

  it("bounds an excerpt whose window holds a huge run of punctuation", () => {
    const out = excerpt(`zebraword one two ${"-".repeat(14_000)} three quagga`, ["zebraword", "quagga"], 14);
    expect(length(out)).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(out.startsWith("zebraword one two --")).toBe(true);
    expect(out.endsWith("-…")).toBe(true);
  });

  it("bounds an excerpt whose window holds a huge token", () => {
    const out = excerpt(`okapiword ${"y".repeat(14_000)}`, ["okapiword"], 14);
    expect(length(out)).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(out).toMatch(/^okapiword y+…$/);
    expect(excerpt("-".repeat(14_000), ["okapiword"], 14)).toBe(`${"-".repeat(EXCERPT_MAX_CHARS - 1)}…`);
  });

  it("centres the matches and keeps surrogate pairs whole", () => {
    const text = `${"a".repeat(5000)} 😀 okapiword 😀 ${"b".repeat(5000)}`;
    const out = excerpt(text, ["okapiword"], 14, 41);
    expect(out).toBe(`…${"a".repeat(12)} 😀 okapiword 😀 ${"b".repeat(12)}…`);
    expect(length(out)).toBe(41);
    const emoji = excerpt(`okapiword ${"😀".repeat(5000)} end`, ["okapiword"], 14, 30);
    expect(emoji).toBe(`okapiword ${"😀".repeat(19)}…`);
    expect(wellFormed(emoji)).toBe(true);
    for (let max = 3; max < 60; max++) {
      const cut = excerpt(`${"😀".repeat(90)} okapiword ${"😀".repeat(90)}`, ["okapiword"], 14, max);
      expect(wellFormed(cut), String(max)).toBe(true);
      expect(length(cut), String(max)).toBeLessThanOrEqual(max);
    }
  });

  it("shortens an excerpt around its matches, keeping its cut markers", () => {
    const long = excerpt(
      `${"x ".repeat(100)}${"a".repeat(300)} okapiword ${"b".repeat(300)}`,
      ["okapiword"],
      14,
    );
    expect(long.startsWith("…")).toBe(true);
    const short = shortenExcerpt(long, ["okapiword"], 30);
    expect(short).toBe(`…${"a".repeat(8)} okapiword ${"b".repeat(9)}…`);
    expect(shortenExcerpt("short one", ["okapiword"], 30)).toBe("short one");
  });

  it("keeps the punctuation at an end of the text it reaches, and shows CJK text without its separators", () => {
    expect(excerpt("(Hello world, this is it.)\n", ["hello"], 48)).toBe("(Hello world, this is it.)");
    expect(excerpt("Intro. Hello world, this is it.", ["world"], 3)).toBe("…Hello world, this…");
    expect(excerpt("検\u200B索\u200B結\u200B果です。", ["検"], 48)).toBe("検索結果です。");
  });
});
