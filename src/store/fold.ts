/**
 * Case- and diacritic-folding for the plain engine's literal substring matching:
 * NFKD, combining marks removed, lower-cased. "Crème Brûlée" -> "creme brulee". The search
 * projection's CJK separators (U+200B, projection/cjk.ts) go too, so "検索" finds "検\u200B索".
 */
export function foldText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\p{M}\u200B]+/gu, "")
    .toLowerCase();
}
