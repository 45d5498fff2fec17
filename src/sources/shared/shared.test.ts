import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseTimestamp } from "./time.js";
import { looksLikeBase64, parseDataUrl, scrubBinary, scrubString } from "./binary.js";
import { leadingTag, splitInjected } from "./injected.js";
import { parseExitCode, splitContentItems } from "./tool-output.js";
import { RecentMap, RecentSet } from "./bounded.js";
import { jsonColumn, parseJsonObjectLine } from "./json.js";
import { utf8Cut } from "./utf8-cut.js";

const B64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==".repeat(
    4,
  );

describe("parseTimestamp", () => {
  it("reads ISO strings, epoch ms, epoch seconds (integral or fractional) and numeric strings", () => {
    const ms = Date.parse("2026-09-30T11:39:00.040Z");
    expect(parseTimestamp("2026-09-30T11:39:00.040Z")).toBe(ms);
    expect(parseTimestamp("2026-09-30T08:39:00.040-03:00")).toBe(ms);
    expect(parseTimestamp(1790768340040)).toBe(1790768340040);
    expect(parseTimestamp(1790768340)).toBe(1790768340000);
    expect(parseTimestamp(1790768340.0477471)).toBe(1790768340048);
    expect(parseTimestamp("1790768340")).toBe(1790768340000);
    expect(parseTimestamp(1790768340, "ms")).toBe(1790768340);
    expect(parseTimestamp(179076834004, "s")).toBe(179076834004000);
  });

  it("returns null past the year 9999 (a Date could not print it, or no transcript is that late)", () => {
    expect(parseTimestamp(253402300799999)).toBe(253402300799999);
    for (const v of [1e20, 253402300800000, Infinity]) expect(parseTimestamp(v)).toBeNull();
    expect(parseTimestamp(1790768340040, "s")).toBeNull();
  });

  it("returns null for absent, zero and placeholder values", () => {
    for (const v of [
      undefined,
      null,
      "",
      0,
      -5,
      "[trimmed for fixture]",
      "yesterday",
      {},
      NaN,
      "2026-13-45T99:99:99Z",
    ]) {
      expect(parseTimestamp(v)).toBeNull();
    }
  });
});

describe("binary scrubbing", () => {
  it("parses data URL heads without reading the payload", () => {
    expect(parseDataUrl(`data:image/png;base64,${B64}`)).toEqual({ mediaType: "image/png", base64: true });
    expect(parseDataUrl("data:,hello")).toEqual({ base64: false });
    expect(parseDataUrl("https://x")).toBeUndefined();
  });

  it("recognises long base64 but not paths, words or hex", () => {
    expect(looksLikeBase64(B64)).toBe(true);
    expect(looksLikeBase64("a".repeat(300))).toBe(false);
    expect(looksLikeBase64("0123456789abcdef".repeat(20))).toBe(false);
    expect(looksLikeBase64("/usr/local/lib/node_modules/some-package/dist/index.js".repeat(6))).toBe(false);
  });

  it("replaces data URLs, bare base64, embedded data URLs, encrypted_content and declared binary", () => {
    expect(scrubString(`data:image/png;base64,${B64}`)).toMatch(/^\[image\/png data omitted/);
    expect(scrubString(`<img src="data:image/jpeg;base64,${B64}"> ok`)).toMatch(
      /^<img src="\[image\/jpeg data omitted, \d+ chars\]"> ok$/,
    );
    const scrubbed = JSON.stringify(
      scrubBinary({
        content: [
          { type: "text", text: "kept" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          { type: "image", data: "BBBB", mimeType: "image/gif" },
        ],
        encrypted_content: "gAAAAAB-secret",
        blob: B64,
        nested: { deeper: [`data:application/pdf;base64,${B64}`] },
      }),
    );
    expect(scrubbed).toContain("kept");
    for (const leaked of ["AAAA", "BBBB", "gAAAAAB-secret", B64.slice(0, 30)])
      expect(scrubbed).not.toContain(leaked);
  });

  it("never throws and never grows a value's text with base64", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        scrubBinary(value);
      }),
    );
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i++) deep = { a: deep };
    expect(JSON.stringify(scrubBinary(deep))).toContain("nested too deep");
  });
});

describe("injected spans", () => {
  it("splits known tags out of text, keeping the rest", () => {
    expect(
      splitInjected("fix it\n<system-reminder>\nnote\n</system-reminder>\nplease", ["system-reminder"]),
    ).toEqual({
      text: "fix it\n\nplease",
      context: [{ label: "system-reminder", text: "note" }],
    });
    expect(splitInjected("<system-reminder>\n# Env… (trimmed: 281 bytes)", ["system-reminder"])).toEqual({
      text: "",
      context: [{ label: "system-reminder", text: "# Env… (trimmed: 281 bytes)" }],
    });
    expect(splitInjected("a <div>b</div>", ["system-reminder"])).toEqual({
      text: "a <div>b</div>",
      context: [],
    });
  });

  it("finds a leading tag", () => {
    expect(leadingTag("  <environment_context>\n<cwd>/x</cwd>")).toBe("environment_context");
    expect(leadingTag("<permissions instructions>\nx")).toBe("permissions instructions");
    expect(leadingTag('<subagent sessionID="s" state="done">')).toBe("subagent");
    expect(leadingTag("hello <b>")).toBeUndefined();
  });
});

describe("tool outputs", () => {
  it("reads exit codes from Codex headers and Claude error text only", () => {
    expect(
      parseExitCode("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 127\nOutput:\n"),
    ).toBe(127);
    expect(parseExitCode("Exit code 1\nnpm ERR!")).toBe(1);
    expect(parseExitCode("the script printed\nExit code 3 somewhere later")).toBeUndefined();
    expect(parseExitCode("all good")).toBeUndefined();
  });

  it("splits content items into text, images and the rest", () => {
    expect(
      splitContentItems([
        { type: "text", text: "a" },
        { type: "input_text", text: "b" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "x" } },
        { type: "input_image", image_url: "data:image/webp;base64,UklGR" },
        { type: "tool_reference", name: "t" },
      ]),
    ).toEqual({
      text: "a\nb",
      images: ["image/png", "image/webp"],
      other: [{ type: "tool_reference", name: "t" }],
    });
  });
});

describe("bounded memory and JSON", () => {
  it("forgets the oldest entries and round-trips through JSON", () => {
    const set = new RecentSet(2, ["a", "b", "c"]);
    expect(set.toJSON()).toEqual(["b", "c"]);
    const map = new RecentMap<number>(2, [
      ["a", 1],
      ["b", 2],
    ]);
    map.set("c", 3);
    expect(map.get("a")).toBeUndefined();
    expect(new RecentMap<number>(2, map.toJSON()).get("c")).toBe(3);
  });

  it("parses JSONL lines and JSON columns without throwing", () => {
    expect(parseJsonObjectLine('{"a":1}\r')).toEqual({ a: 1 });
    expect(parseJsonObjectLine('{"a":')).toBeUndefined();
    expect(parseJsonObjectLine("[]")).toBeUndefined();
    expect(jsonColumn('{"x":2}')).toEqual({ x: 2 });
    expect(jsonColumn(new TextEncoder().encode('{"y":3}'))).toEqual({ y: 3 });
    expect(jsonColumn("nope")).toBeUndefined();
  });
});

describe("utf8Cut", () => {
  const bytes = (s: string) => Buffer.from(s, "utf8");
  it("never leaves a character split at the cut, whatever its length", () => {
    for (const ch of ["é", "€", "😀"]) {
      const buf = bytes(`ab${ch}cd`);
      const n = Buffer.byteLength(ch);
      for (let max = 3; max <= buf.length; max++) {
        const cut = utf8Cut(buf, max);
        expect(cut, `${ch} at ${max}`).toBe(max > 2 && max < 2 + n ? 2 : max);
        expect(buf.subarray(0, cut).toString("utf8")).not.toContain("\ufffd");
      }
      // A buffer that ends inside a character (more bytes to come) is cut before it.
      expect(utf8Cut(bytes(`ab${ch}`).subarray(0, 2 + n - 1))).toBe(2);
      expect(utf8Cut(bytes(`ab${ch}`))).toBe(2 + n);
    }
    expect(utf8Cut(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80]), 3)).toBe(3); // not UTF-8: cut as asked
  });
});
