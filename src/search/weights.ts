/** bm25 column weights: title matches weigh three times body matches, as the chat-search plan prescribes. */
export const TITLE_WEIGHT = 3.0;
export const BODY_WEIGHT = 1.0;
