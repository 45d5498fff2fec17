/** bm25 column weights (title, body) one search ranks with. */
export interface ColumnWeights {
  readonly title: number;
  readonly body: number;
}

/** search_chats: title matches weigh three times body matches, as the chat-search plan prescribes. */
export const CHAT_WEIGHTS: ColumnWeights = { title: 3, body: 1 };

/**
 * search_history: every document carries its conversation's title, so at the chat weight one
 * query word in a title outranked the same word in a message, and a conversation's every message
 * buried the messages that hold all the words themselves. A title still lets a message match a
 * query (AND across title and body) and breaks ties, worth an eighth of a body occurrence: above
 * zero, as the planner tells a matching row by a positive frequency, and a power of two, so the
 * planner's sums of weights equal FTS5's bit for bit (planner.ts scores rows as bm25() does).
 */
export const HISTORY_WEIGHTS: ColumnWeights = { title: 0.125, body: 1 };

/** The bm25() call for these weights (numbers from this module, never from input). */
export const bm25Call = (w: ColumnWeights) => `bm25(recall_fts, ${w.title}, ${w.body})`;

export const sameWeights = (a: ColumnWeights, b: ColumnWeights) => a.title === b.title && a.body === b.body;
