/**
 * CJK text in the search projection. SQLite's unicode61 tokenizer makes one token of a whole
 * run of letters, and CJK scripts write no spaces, so a sentence such as
 * `検索結果に古いメッセージが表示されません` would be a single token and no word inside it could
 * be found. The search projection (never the read projection) therefore puts CJK_SEPARATOR
 * between a CJK character and any letter or digit next to it, so each CJK character is a token
 * of its own and Latin words beside it (`Reactの` → `React`, `の`) stay whole. The query side
 * (src/search/) splits a query's CJK runs into single characters matched as a phrase, with the
 * same CJK_CHAR, so the two agree.
 */

/** U+200B ZERO WIDTH SPACE: a separator to unicode61 (category Cf), invisible in text. */
export const CJK_SEPARATOR = "\u200B";

/**
 * One CJK character: Han, Hiragana, Katakana (with the prolonged sound marks ー U+30FC and its
 * half-width form U+FF70, which Unicode files under Common), Hangul. Matches a single code point
 * (u flag, no g flag: safe to `.test()` repeatedly).
 */
export const CJK_CHAR =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\uFF70]/u;

const CJK = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\uFF70]`;
const ANY_CJK = new RegExp(CJK, "u");
/**
 * Code units every CJK character lies in (a superset: the CJK blocks, Hangul Jamo, half- and
 * full-width forms, and any astral character's high surrogate). Without the u flag it is a plain
 * range scan, several times faster than ANY_CJK's script properties over text with no CJK,
 * which is almost all text (at 1M messages a query's scoring spent 11–28 ms in ANY_CJK alone).
 */
const MAYBE_CJK = /[\u1100-\u11FF\u2E80-\u9FFF\uA960-\uA97F\uAC00-\uDBFF\uF900-\uFAFF\uFF00-\uFFEF]/;
/** What unicode61 keeps inside a token by default (categories L*, N*, Co). */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

const UNKNOWN = 0;
const IS_CJK = 1;
const IS_TOKEN = 2;
const IS_OTHER = 3;
/** Class of each BMP code unit, filled in on first sight from CJK_CHAR and TOKEN_CHAR. */
const BMP_CLASS = new Uint8Array(0x10000);
/** Class of astral characters seen (bounded). */
const ASTRAL_CLASS = new Map<string, number>();
const ASTRAL_CLASS_MAX = 4096;

function classify(ch: string): number {
  return CJK_CHAR.test(ch) ? IS_CJK : TOKEN_CHAR.test(ch) ? IS_TOKEN : IS_OTHER;
}

function bmpClass(c: number): number {
  let cls = BMP_CLASS[c]!;
  if (cls === UNKNOWN) BMP_CLASS[c] = cls = classify(String.fromCharCode(c));
  return cls;
}

function astralClass(pair: string): number {
  let cls = ASTRAL_CLASS.get(pair);
  if (cls === undefined) {
    cls = classify(pair);
    if (ASTRAL_CLASS.size < ASTRAL_CLASS_MAX) ASTRAL_CLASS.set(pair, cls);
  }
  return cls;
}

/** Whether `text` holds at least one CJK character. */
export function hasCjk(text: string): boolean {
  return MAYBE_CJK.test(text) && ANY_CJK.test(text);
}

/**
 * `text` with CJK_SEPARATOR between each CJK character and an adjacent letter or digit (CJK or
 * not). Text without CJK comes back unchanged (the same string). A separator already present is
 * not doubled, since it is not a letter. Each insertion adds 3 UTF-8 bytes: callers bound the
 * result, not the input (ProjectionSink does it on its bounded output). One pass over the code
 * units, classes cached per character (the same result as a lookaround regex, several times
 * faster).
 */
export function separateCjk(text: string): string {
  if (!hasCjk(text)) return text;
  let out = "";
  let from = 0;
  let prev = IS_OTHER;
  const n = text.length;
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    let cls: number;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        width = 2;
        cls = astralClass(text.slice(i, i + 2));
      } else cls = IS_OTHER;
    } else cls = bmpClass(c);
    if ((prev === IS_CJK && cls !== IS_OTHER) || (prev === IS_TOKEN && cls === IS_CJK)) {
      out += text.slice(from, i) + CJK_SEPARATOR;
      from = i;
    }
    prev = cls;
    i += width;
  }
  return from === 0 ? text : out + text.slice(from);
}
