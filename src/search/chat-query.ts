import { queryTokens, splitCjk } from "./query.js";
import { STOPWORDS } from "./stopwords.js";

/** search_chats reads at most this many distinct terms. */
export const MAX_CHAT_TERMS = 12;

/**
 * Significant terms of a search_chats query: Unicode tokens (a CJK run a phrase of its
 * characters, query.ts splitCjk), stopwords dropped only when other terms remain,
 * de-duplicated, at most 12.
 */
export function chatQueryTerms(query: string): string[] {
  const tokens = [...new Set(queryTokens(query).flatMap(splitCjk))];
  const significant = tokens.filter((t) => !STOPWORDS.has(t));
  return (significant.length > 0 ? significant : tokens).slice(0, MAX_CHAT_TERMS);
}
