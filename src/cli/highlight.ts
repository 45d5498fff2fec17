import { foldText } from "../app/search.js";

const BOLD = "\u001b[1;33m";
const RESET = "\u001b[0m";

/**
 * Marks matched query terms in a snippet: bold yellow on a terminal, «term» otherwise.
 * Matching is case- and diacritic-insensitive, like the index.
 */
export function highlight(text: string, tokens: readonly string[], color: boolean): string {
  if (tokens.length === 0) return text;
  const wanted = new Set(tokens.map(foldText));
  return text.replace(/[\p{L}\p{N}\p{M}]+/gu, (word) =>
    wanted.has(foldText(word)) ? (color ? `${BOLD}${word}${RESET}` : `«${word}»`) : word,
  );
}
