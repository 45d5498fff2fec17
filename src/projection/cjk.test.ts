import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TranscriptTurn } from "../core/transcript.js";
import { boundText, SEARCH_PROJECTION_MAX_BYTES } from "./bounds.js";
import { CJK_CHAR, CJK_SEPARATOR, hasCjk, separateCjk } from "./cjk.js";
import { projectChatMessage, projectTranscriptTurn, projectTranscriptTurnBoth } from "./index.js";
import { utf8ByteLength } from "./utf8.js";

const Z = CJK_SEPARATOR;
const JA = "検索結果に古いメッセージが表示されません";
const textTurn = (role: TranscriptTurn["role"], text: string): TranscriptTurn => ({
  role,
  blocks: [{ type: "text", text }],
  isCompactionSummary: false,
});

describe("separateCjk", () => {
  it("puts U+200B between adjacent CJK characters, so each is one unicode61 token", () => {
    expect(separateCjk(JA)).toBe(Array.from(JA).join(Z));
    expect(separateCjk("한국어 검색")).toBe(`한${Z}국${Z}어 검${Z}색`);
    // The prolonged sound mark is a letter to unicode61 (Lm): it is separated too.
    expect(separateCjk("メッセージ")).toBe(`メ${Z}ッ${Z}セ${Z}ー${Z}ジ`);
    // Han outside the BMP (surrogate pairs) stays whole.
    expect(separateCjk("𠀋𠀋")).toBe(`𠀋${Z}𠀋`);
  });

  it("keeps Latin words whole, and splits them from CJK characters they touch", () => {
    expect(separateCjk("PostgreSQL と検索")).toBe(`PostgreSQL と${Z}検${Z}索`);
    expect(separateCjk("Reactのコンポーネント v18")).toBe(
      `React${Z}の${Z}コ${Z}ン${Z}ポ${Z}ー${Z}ネ${Z}ン${Z}ト v18`,
    );
    expect(separateCjk("検索、結果。")).toBe(`検${Z}索、結${Z}果。`);
  });

  it("leaves text without CJK unchanged and never doubles a separator", () => {
    const latin = "Plain English, naïve café — 42";
    expect(separateCjk(latin)).toBe(latin);
    expect(separateCjk(`検${Z}索`)).toBe(`検${Z}索`);
    expect(separateCjk(separateCjk(JA))).toBe(separateCjk(JA));
  });

  it("exports a one-character CJK predicate the query side can reuse", () => {
    expect(CJK_CHAR.flags).toContain("u");
    expect(CJK_CHAR.global).toBe(false);
    for (const ch of ["検", "ひ", "カ", "ー", "ｶ", "한", "𠀋"]) expect(CJK_CHAR.test(ch)).toBe(true);
    for (const ch of ["a", "é", "1", "、", " ", Z]) expect(CJK_CHAR.test(ch)).toBe(false);
    expect(hasCjk("abc")).toBe(false);
    expect(hasCjk("abc検")).toBe(true);
  });
});

describe("CJK in projections: search mode only", () => {
  it("transcript turns: search text separated, read text unchanged", () => {
    for (const role of ["user", "assistant"] as const) {
      const t = textTurn(role, JA);
      expect(projectTranscriptTurn(t, "search").text).toBe(Array.from(JA).join(Z));
      expect(projectTranscriptTurn(t, "read").text).toBe(JA);
      const both = projectTranscriptTurnBoth(t);
      expect(both.search.text).toBe(Array.from(JA).join(Z));
      expect(both.read.text).toBe(JA);
    }
    const mixed = textTurn("user", "PostgreSQL と検索");
    expect(projectTranscriptTurn(mixed, "search").text).toBe(`PostgreSQL と${Z}検${Z}索`);
    expect(projectTranscriptTurn(mixed, "read").text).toBe("PostgreSQL と検索");
  });

  it("tool previews and written content are separated too", () => {
    const t: TranscriptTurn = {
      role: "tool",
      blocks: [{ type: "tool_result", name: "Bash", output: "テスト成功" }],
      isCompactionSummary: false,
    };
    expect(projectTranscriptTurn(t, "search").text).toBe(`テ${Z}ス${Z}ト${Z}成${Z}功`);
    expect(projectTranscriptTurn(t, "read").text).toBe("[result: Bash ok]\nテスト成功");
  });

  it("Dyad chat messages", () => {
    const user = { role: "user" as const, content: JA, isCompactionSummary: false };
    expect(projectChatMessage(user, "search").text).toBe(Array.from(JA).join(Z));
    expect(projectChatMessage(user, "read").text).toBe(JA);
    const assistant = {
      role: "assistant" as const,
      content: `古い<dyad-write path="a.ts">BODY</dyad-write>メッセージ`,
      isCompactionSummary: false,
    };
    expect(projectChatMessage(assistant, "search").text).toContain(`メ${Z}ッ${Z}セ${Z}ー${Z}ジ`);
    expect(projectChatMessage(assistant, "read").text).toContain("メッセージ");
  });

  it("the byte bound holds with the separators (3 bytes each)", () => {
    // 5,000 CJK characters: 15,000 bytes fit the 16 KiB search bound alone, not with separators.
    const long = "検索結果".repeat(1250);
    const read = boundText(long, "read");
    expect(read).toEqual({ text: long, truncated: false });
    const search = boundText(long, "search");
    expect(search.truncated).toBe(true);
    expect(utf8ByteLength(search.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
    expect(search.text.startsWith(`検${Z}索${Z}結${Z}果${Z}検`)).toBe(true);
    const huge = boundText("検索結果".repeat(100_000), "search");
    expect(huge.truncated).toBe(true);
    expect(utf8ByteLength(huge.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
    expect(huge.text.endsWith(`検${Z}索${Z}結${Z}果`)).toBe(true);
  });
});

describe("separateCjk: the same as the lookaround rule", () => {
  const CJK = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\uFF70]`;
  const TOKEN = String.raw`[\p{L}\p{N}\p{Co}]`;
  const rule = new RegExp(`(?<=${CJK})(?=${TOKEN})|(?<=${TOKEN})(?=${CJK})`, "gu");
  it("on random mixes of scripts, digits, marks, punctuation and surrogates", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            "検",
            "索",
            "ひ",
            "カ",
            "ー",
            "ｰ",
            "한",
            "𠀋",
            "😀",
            "a",
            "Z",
            "é",
            "1",
            "٣",
            "、",
            " ",
            "\u0301",
            "\u200B",
            "\uD800",
            "\uE000",
            "-",
          ),
          { maxLength: 40 },
        ),
        (chars) => {
          const text = chars.join("");
          expect(separateCjk(text)).toBe(hasCjk(text) ? text.replace(rule, CJK_SEPARATOR) : text);
        },
      ),
      { numRuns: 3_000, seed: 11 },
    );
  });
});

describe("hasCjk's fast range check", () => {
  it("lets through every code point CJK_CHAR matches (all of Unicode)", () => {
    const missed: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (CJK_CHAR.test(ch) !== hasCjk(ch)) missed.push(cp.toString(16));
    }
    expect(missed).toEqual([]);
  });
});
