import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BASE64_PLACEHOLDER,
  ProjectionSink,
  READ_PROJECTION_HEAD_BYTES,
  READ_PROJECTION_MAX_BYTES,
  READ_PROJECTION_TAIL_BYTES,
  SEARCH_PROJECTION_HEAD_BYTES,
  SEARCH_PROJECTION_MAX_BYTES,
  SEARCH_PROJECTION_TAIL_BYTES,
  TRUNCATION_MARKER,
  boundText,
  boundsFor,
} from "./bounds.js";
import { CJK_SEPARATOR } from "./cjk.js";
import { PROJECTION_VERSION } from "./index.js";
import { cutHeadToBytes, cutTailToBytes, shortValue, utf8ByteLength } from "./utf8.js";

describe("caps", () => {
  it("are documented constants whose truncated form fits the maximum", () => {
    expect(SEARCH_PROJECTION_MAX_BYTES).toBe(16 * 1024);
    expect(READ_PROJECTION_MAX_BYTES).toBe(32 * 1024);
    const marker = utf8ByteLength(TRUNCATION_MARKER);
    expect(SEARCH_PROJECTION_HEAD_BYTES + marker + SEARCH_PROJECTION_TAIL_BYTES).toBeLessThanOrEqual(
      SEARCH_PROJECTION_MAX_BYTES,
    );
    expect(READ_PROJECTION_HEAD_BYTES + marker + READ_PROJECTION_TAIL_BYTES).toBeLessThanOrEqual(
      READ_PROJECTION_MAX_BYTES,
    );
    expect(PROJECTION_VERSION).toBe(4);
  });
});

describe("whitespace normalisation", () => {
  it("collapses blanks, keeps at most one blank line, trims", () => {
    expect(boundText(" \t a  b\t\tc \u00a0 d\u3000e ", "search").text).toBe("a b c d e");
    expect(boundText("a\r\nb\rc\n\n\n\n\nd \n \n e", "search").text).toBe("a\nb\nc\n\nd\n\ne");
    expect(boundText("\n\n  \n", "search").text).toBe("");
    expect(boundText("a\u0000b\u0007c", "search").text).toBe("a b c");
  });

  it("NFC-normalises the output", () => {
    expect(boundText("cafe\u0301", "search").text).toBe("caf\u00e9");
  });

  it("is the same whether input arrives whole or in pieces", () => {
    const text = "one  two\n\n\nthree\tfour ";
    const sink = new ProjectionSink(boundsFor("search"));
    for (const ch of text) sink.write(ch);
    expect(sink.finish().text).toBe(boundText(text, "search").text);
  });
});

describe("base64 and data URLs", () => {
  const b64 = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 73 + 11) % 256)).toString("base64");

  it("drops data-URL payloads, whatever their length", () => {
    const r = boundText(
      "see data:image/png;base64,iVBORw0KGgo= and data:image/gif;base64," + b64 + " end",
      "search",
    );
    expect(r.text).toBe(
      `see data:image/png;base64,${BASE64_PLACEHOLDER} and data:image/gif;base64,${BASE64_PLACEHOLDER} end`,
    );
  });

  it("drops long base64-looking runs but keeps paths, hashes and words", () => {
    const keep = [
      "src/components/forms/login/very/deep/directory/structure/with-many-segments/and-more/and-more/index",
      "3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab8",
      "a".repeat(150),
      "SomeVeryLongIdentifierName_withMixedCase_and_underscores_and_more_words_to_pass_one_hundred_characters",
    ];
    for (const k of keep) expect(boundText(`x ${k} y`, "search").text).toBe(`x ${k} y`);
    expect(boundText(`x ${b64} y`, "search").text).toBe(`x ${BASE64_PLACEHOLDER} y`);
  });
});

describe("head/tail truncation", () => {
  it("keeps the first HEAD and last TAIL bytes with the marker, deterministically", () => {
    const words = Array.from({ length: 10000 }, (_, i) => `w${i}`).join(" ");
    const a = boundText(words, "search");
    const b = boundText(words, "search");
    expect(a).toEqual(b);
    expect(a.truncated).toBe(true);
    const [head, tail] = a.text.split(TRUNCATION_MARKER) as [string, string];
    expect(words.startsWith(head)).toBe(true);
    expect(words.endsWith(tail)).toBe(true);
    expect(utf8ByteLength(head)).toBeLessThanOrEqual(SEARCH_PROJECTION_HEAD_BYTES);
    expect(utf8ByteLength(head)).toBeGreaterThanOrEqual(SEARCH_PROJECTION_HEAD_BYTES - 1);
    expect(utf8ByteLength(tail)).toBeLessThanOrEqual(SEARCH_PROJECTION_TAIL_BYTES);
    expect(utf8ByteLength(tail)).toBeGreaterThanOrEqual(SEARCH_PROJECTION_TAIL_BYTES - 1);
  });

  it("does not truncate a text of exactly the maximum", () => {
    const exact = "a".repeat(SEARCH_PROJECTION_MAX_BYTES);
    expect(boundText(exact, "search")).toEqual({ text: exact, truncated: false });
    expect(boundText(exact + "b", "search").truncated).toBe(true);
  });

  it("read mode has its own larger bound", () => {
    const text = "z".repeat(SEARCH_PROJECTION_MAX_BYTES + 10);
    expect(boundText(text, "search").truncated).toBe(true);
    expect(boundText(text, "read").truncated).toBe(false);
    const big = boundText("y".repeat(READ_PROJECTION_MAX_BYTES * 2), "read");
    expect(big.truncated).toBe(true);
    expect(utf8ByteLength(big.text)).toBeLessThanOrEqual(READ_PROJECTION_MAX_BYTES);
  });

  it("cuts by UTF-8 bytes without splitting code points or surrogate pairs", () => {
    for (const unit of ["é", "漢", "😀", "a😀"]) {
      const text = unit.repeat(20000);
      const r = boundText(text, "search");
      expect(r.truncated).toBe(true);
      expect(utf8ByteLength(r.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
      expect(r.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(r.text).not.toContain("\uFFFD");
      // Search mode makes each CJK character a token of its own (cjk.ts); the separators count
      // against the bound too.
      const [head, tail] = r.text.split(TRUNCATION_MARKER).map((s) => s.replaceAll(CJK_SEPARATOR, "")) as [
        string,
        string,
      ];
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
      expect(r.text.includes(CJK_SEPARATOR)).toBe(unit === "漢");
    }
  });

  it("replaces lone surrogates", () => {
    expect(boundText("a\uD800b", "search").text).toBe("a\uFFFDb");
  });
});

describe("utf8 helpers", () => {
  it("measure and cut exactly", () => {
    expect(utf8ByteLength("aé漢😀")).toBe(1 + 2 + 3 + 4);
    expect(cutHeadToBytes("aé漢😀", 6)).toBe("aé漢");
    expect(cutHeadToBytes("aé漢😀", 9)).toBe("aé漢");
    expect(cutTailToBytes("aé漢😀", 4)).toBe("😀");
    expect(cutTailToBytes("aé漢😀", 3)).toBe("");
    expect(shortValue("  a \n b  ", 10)).toBe("a b");
    expect(shortValue("abcdef", 3)).toBe("abc…");
    expect(shortValue("😀😀😀", 2)).toBe("😀😀…");
  });
});

describe("skipping the middle of long writes", () => {
  const small = { maxBytes: 256, headBytes: 160, tailBytes: 72 };
  const piece = fc.oneof(
    fc.constantFrom(
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "\n\n\n",
      "\u00a0",
      "\u2028",
      ".",
      ",",
      ";",
      ";base64,",
      "data:x;base64,",
      "é",
      "漢",
      "😀",
      "-",
      "/",
      "=",
      "+",
    ),
    fc.constantFrom(
      "&amp;",
      "&lt;",
      "&#60;",
      "&#x1F600;",
      "&#32;",
      "&#10;",
      "&#13;",
      "&#65;",
      "&",
      "#",
      "&amp",
      "&quot;x",
      "&#x3b;base64,",
      "\uD800",
      "\uDC00",
    ),
    fc.stringMatching(/^[a-z]{1,12}$/),
    fc.stringMatching(/^[A-Za-z0-9+/]{20,160}$/),
    fc.constant(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg".repeat(
        2,
      ),
    ),
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 400 }).map((a) => a.join(""));

  it("gives exactly the output of a full pass (property)", () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 4 }), fc.boolean(), (t, cuts, decode) => {
        const reference = new ProjectionSink(small, { skipMinChars: Number.POSITIVE_INFINITY });
        const skipping = new ProjectionSink(small, { skipMinChars: 16 });
        const points = [...new Set(cuts.map((c) => c % (t.length + 1)))].sort((a, b) => a - b);
        for (const sink of [reference, skipping]) {
          let from = 0;
          for (const p of [...points, t.length]) {
            sink.write(t, from, p, decode);
            if (p % 3 === 0) sink.newline();
            from = p;
          }
        }
        expect(skipping.finish()).toEqual(reference.finish());
      }),
      { numRuns: Number(process.env.PROJECTION_PROPERTY_RUNS ?? 3000), seed: 7 },
    );
  });
});
