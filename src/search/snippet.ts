/** search_history's snippet bound: at most 320 characters of plain text. */
export const SNIPPET_MAX_CHARS = 320;

/** Collapses whitespace and cuts to the bound on a code-point boundary, marking the cut. */
export function boundSnippet(text: string, max = SNIPPET_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  return `${chars.slice(0, max - 1).join("")}…`;
}
