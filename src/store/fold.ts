/**
 * Case- and diacritic-folding for the plain engine's literal substring matching:
 * NFKD, combining marks removed, lower-cased. "Crème Brûlée" -> "creme brulee".
 */
export function foldText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}
