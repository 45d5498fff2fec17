import { CJK_SEPARATOR, hasCjk } from "../projection/cjk.js";
import { foldForMatching } from "./bm25.js";

/**
 * Short excerpts around a message's matches, computed from its text in JavaScript: FTS5's
 * snippet() would look every id up again in the index, and re-expands a prefix term on each look-up
 * (a full merge of its postings: tens of milliseconds per row for a common stem at a million rows).
 * Tokens and folding follow unicode61 (bm25.ts); the window of `size` tokens holding the most
 * distinct query terms (then the most matches, then the earliest) is returned, with an ellipsis
 * where text was cut, as snippet() does. The window keeps the text between its tokens, so an
 * excerpt is also bounded in code points (`maxChars`, ellipses included): a longer window is cut on
 * code-point boundaries around its matches (all of them when they fit, else the first), centred.
 */

const TOKEN = /[a-z0-9\p{L}\p{N}\p{M}\p{Co}]+/gu;
const ELLIPSIS = "…";

/** CJK characters an excerpt window counts as one word (a Japanese or Chinese word is 2–4 characters). */
export const CJK_WORD_TOKENS = 3;

/** An excerpt's maximum length in code points, ellipses included (at least 3). */
export const EXCERPT_MAX_CHARS = 240;

function termOf(token: string, terms: readonly string[]): number {
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (t.endsWith("*") ? token.startsWith(t.slice(0, -1)) : token === t) return i;
  }
  return -1;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const collapse = (s: string) => s.replace(/\s+/g, " ");

/**
 * text[from, to) with whitespace collapsed and marked where cut, at most `maxChars` code points:
 * when longer, the focus text[focusFrom, focusTo) (its start, when the focus alone is too long)
 * with as much context as fits on either side, centred. All offsets are token boundaries.
 */
function clip(
  text: string,
  range: { from: number; to: number; focusFrom: number; focusTo: number },
  maxChars: number,
  cutBefore: boolean,
  cutAfter: boolean,
): string {
  const whole = collapse(text.slice(range.from, range.to));
  if (codePointLength(whole) + (cutBefore ? 1 : 0) + (cutAfter ? 1 : 0) <= maxChars)
    return `${cutBefore ? ELLIPSIS : ""}${whole}${cutAfter ? ELLIPSIS : ""}`;
  const before = Array.from(collapse(text.slice(range.from, range.focusFrom)));
  let focus = Array.from(collapse(text.slice(range.focusFrom, range.focusTo)));
  const after = Array.from(collapse(text.slice(range.focusTo, range.to)));
  // Room for text once the ellipses that may be needed are counted.
  let room = maxChars - (cutBefore || before.length > 0 ? 1 : 0);
  if (cutAfter || after.length > 0 || focus.length > room) room--;
  let left = 0;
  let right = 0;
  let focusCut = false;
  if (focus.length >= room) {
    focusCut = focus.length > room;
    focus = focus.slice(0, room);
  } else {
    const spare = room - focus.length;
    left = Math.min(before.length, Math.floor(spare / 2));
    right = Math.min(after.length, spare - left);
    left = Math.min(before.length, spare - right);
  }
  let body = [...before.slice(before.length - left), ...focus, ...after.slice(0, right)].join("");
  const lead = cutBefore || left < before.length;
  const trail = cutAfter || focusCut || right < after.length;
  if (left < before.length) body = body.trimStart();
  if (focusCut || right < after.length) body = body.trimEnd();
  return `${lead ? ELLIPSIS : ""}${body}${trail ? ELLIPSIS : ""}`;
}

function excerptOf(
  text: string,
  terms: readonly string[],
  size: number,
  maxChars: number,
  cutBefore: boolean,
  cutAfter: boolean,
): string {
  if (!(maxChars >= 3)) throw new RangeError(`excerpt bound ${maxChars} is below 3 code points`);
  const lower = foldForMatching(text);
  const spans: { start: number; end: number; term: number }[] = [];
  if (lower !== null) {
    TOKEN.lastIndex = 0;
    for (let m = TOKEN.exec(lower); m !== null; m = TOKEN.exec(lower)) {
      spans.push({ start: m.index, end: m.index + m[0].length, term: termOf(m[0], terms) });
    }
  } else {
    for (const m of text.matchAll(TOKEN))
      spans.push({ start: m.index, end: m.index + m[0].length, term: -1 });
  }
  if (spans.length === 0) {
    const trimmed = text.trim();
    return clip(
      trimmed,
      { from: 0, to: trimmed.length, focusFrom: 0, focusTo: 0 },
      maxChars,
      cutBefore,
      cutAfter,
    );
  }
  let best = 0;
  let bestDistinct = -1;
  let bestHits = -1;
  const starts = spans.flatMap((s, i) =>
    s.term >= 0 ? [Math.max(0, Math.min(i - 1, spans.length - size))] : [],
  );
  for (const start of starts.length > 0 ? starts : [0]) {
    const seen = new Set<number>();
    let hits = 0;
    for (let i = start; i < Math.min(spans.length, start + size); i++) {
      if (spans[i]!.term >= 0) {
        seen.add(spans[i]!.term);
        hits++;
      }
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && hits > bestHits)) {
      best = start;
      bestDistinct = seen.size;
      bestHits = hits;
    }
  }
  const end = Math.min(spans.length, best + size);
  const window = spans.slice(best, end);
  const matches = window.filter((s) => s.term >= 0);
  // The focus: every match of the window when they fit together, else its first match (or token).
  const first = matches[0] ?? window[0]!;
  const last = matches.at(-1) ?? first;
  const room = Math.max(1, maxChars - 2);
  const all = codePointLength(text.slice(first.start, last.end)) <= room;
  // A window at either end of the text keeps the punctuation there ("…listesi."), as snippet() does.
  const atStart = best === 0;
  const atEnd = end === spans.length;
  return clip(
    text,
    {
      from: atStart ? text.length - text.trimStart().length : window[0]!.start,
      to: atEnd ? text.trimEnd().length : window.at(-1)!.end,
      focusFrom: first.start,
      focusTo: all ? last.end : first.end,
    },
    maxChars,
    cutBefore || best > 0,
    cutAfter || end < spans.length,
  );
}

/**
 * The excerpt of `text`: its window of `size` tokens around the query terms, at most `maxChars`
 * code points long (EXCERPT_MAX_CHARS by default), ellipses marking cuts.
 */
export function excerpt(
  text: string,
  terms: readonly string[],
  size: number,
  maxChars = EXCERPT_MAX_CHARS,
): string {
  // The search projection makes each CJK character a token (projection/cjk.ts): a window of
  // `size` tokens would show a few characters of a CJK sentence, so it counts CJK_WORD_TOKENS
  // characters as one word (maxChars still bounds it); the separators are not shown.
  const tokens = hasCjk(text) ? size * CJK_WORD_TOKENS : size;
  return excerptOf(text, terms, tokens, maxChars, false, false).replaceAll(CJK_SEPARATOR, "");
}

/**
 * An excerpt cut again to at most `maxChars` code points, still centred on the query terms it
 * holds, keeping the ellipses that marked its earlier cuts.
 */
export function shortenExcerpt(text: string, terms: readonly string[], maxChars: number): string {
  if (codePointLength(text) <= maxChars) return text;
  const lead = text.startsWith(ELLIPSIS);
  const trail = text.length > (lead ? 1 : 0) && text.endsWith(ELLIPSIS);
  const inner = text.slice(lead ? 1 : 0, trail ? -1 : undefined);
  return excerptOf(inner, terms, Number.POSITIVE_INFINITY, maxChars, lead, trail);
}
