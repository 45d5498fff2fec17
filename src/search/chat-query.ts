import { queryTokens } from "./query.js";
import { STOPWORDS } from "./stopwords.js";

/** search_chats reads at most this many distinct terms. */
export const MAX_CHAT_TERMS = 12;

/**
 * Significant terms of a search_chats query: Unicode tokens, stopwords dropped only when
 * other terms remain, de-duplicated, at most 12.
 */
export function chatQueryTerms(query: string): string[] {
  const tokens = queryTokens(query);
  const significant = tokens.filter((t) => !STOPWORDS.has(t));
  return (significant.length > 0 ? significant : tokens).slice(0, MAX_CHAT_TERMS);
}
