import { describe, expect, it } from "vitest";
import { excerptAround } from "./plain.js";

describe("plain engine snippets", () => {
  it("centres on the match when folding lengthens the text before it (Hangul, ligatures)", () => {
    const body = `${"검색결과가너무느려서인덱스를다시만들었습니다 ".repeat(6)}then the koalaquill5555 flag broke`;
    const snippet = excerptAround(body, ["koalaquill5555"]);
    expect(snippet).toContain("koalaquill5555");
    const ligatures = `${"ﬁﬂ ".repeat(200)}the needle ostrich`;
    expect(excerptAround(ligatures, ["ostrich"])).toContain("ostrich");
  });

  it("never splits a surrogate pair at its edges", () => {
    const body = `${"😀".repeat(300)} marker ${"😀".repeat(300)}`;
    const snippet = excerptAround(body, ["marker"]).replace(/^…|…$/g, "");
    expect(snippet).toContain("marker");
    expect(snippet.charCodeAt(0)).not.toBeGreaterThanOrEqual(0xdc00);
    expect([...snippet].every((c) => c.length === 2 || !/[\ud800-\udfff]/.test(c))).toBe(true);
  });
});
