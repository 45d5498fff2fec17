/** A projection: the only text of a source record that may be indexed or returned. */
export interface Projection {
  /** Normalised, bounded text (never a payload body, reasoning, or binary data). */
  text: string;
  /** True when the text was cut to its byte bound (head and tail kept). */
  truncated: boolean;
}

/**
 * `search`: what goes into the FTS index. `read`: what read_chat / get_conversation return and
 * what the conversation store retains; richer (concise tool, result and error summaries,
 * placeholders for images and injected context) but never a payload body.
 */
export type ProjectionMode = "search" | "read";

/** One message of a Dyad-shaped chat store (`messages.role`, `content`, `is_compaction_summary`). */
export interface ChatMessageInput {
  role: "user" | "assistant";
  content: string;
  isCompactionSummary: boolean;
}
