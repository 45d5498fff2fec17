import { describe, expect, it } from "vitest";
import { ftsTerm, lightStem, prefixTerm } from "./stem.js";

describe("light stemming for search_chats", () => {
  it("cuts common English inflections and keeps short or non-alphabetic words whole", () => {
    expect(lightStem("paintings")).toBe("painting");
    expect(lightStem("painted")).toBe("paint");
    expect(lightStem("families")).toBe("famil");
    expect(lightStem("tokens")).toBe("token");
    expect(lightStem("cat")).toBe("cat");
    expect(lightStem("abc123")).toBe("abc123");
    expect(prefixTerm("painting")).toBe("paint*");
    expect(prefixTerm("go")).toBe("go");
    expect(prefixTerm("zephyrquin1037")).toBe("zephyrquin1037");
    expect(prefixTerm("größe")).toBe("größe");
    // A doubled consonant left by -ing or -ed is undoubled (not ll, ss, zz), when 4 letters remain.
    expect(prefixTerm("planning")).toBe("plan*");
    expect(prefixTerm("shipped")).toBe("ship*");
    expect(prefixTerm("committed")).toBe("commit*");
    expect(prefixTerm("falling")).toBe("fall*");
    expect(prefixTerm("missing")).toBe("miss*");
    expect(prefixTerm("logging")).toBe("logg*");
    expect(prefixTerm("policies")).toBe("polic*");
  });

  it("quotes terms so caller text is never FTS syntax", () => {
    expect(ftsTerm("paint*")).toBe('"paint"*');
    expect(ftsTerm('a"b')).toBe('"a""b"');
  });
});
