import { foldForMatching } from "./bm25.js";

/**
 * Short excerpts around a message's matches, computed from its text in JavaScript: FTS5's
 * snippet() would look every id up again in the index, and re-expands a prefix term on each look-up
 * (a full merge of its postings: tens of milliseconds per row for a common stem at a million rows).
 * Tokens and folding follow unicode61 (bm25.ts); the window of `size` tokens holding the most
 * distinct query terms (then the most matches, then the earliest) is returned, with an ellipsis
 * where text was cut, as snippet() does.
 */

const TOKEN = /[a-z0-9\p{L}\p{N}\p{M}\p{Co}]+/gu;

function termOf(token: string, terms: readonly string[]): number {
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    if (t.endsWith("*") ? token.startsWith(t.slice(0, -1)) : token === t) return i;
  }
  return -1;
}

export function excerpt(text: string, terms: readonly string[], size: number): string {
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
  if (spans.length === 0) return text.replace(/\s+/g, " ").trim();
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
  const body = text.slice(spans[best]!.start, spans[end - 1]!.end).replace(/\s+/g, " ");
  return `${best > 0 ? "…" : ""}${body}${end < spans.length ? "…" : ""}`;
}
