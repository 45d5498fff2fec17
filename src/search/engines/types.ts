import type { DocumentFilters } from "../filters.js";

export interface RankedDocument {
  id: number;
  hitId: string;
  kind: string;
  agent: string;
  at: number;
  project: string | null;
  session: string | null;
  job: string | null;
  run: string | null;
  message: string | null;
  conversation: string | null;
  cursor: string | null;
  role: string;
  /** The title the document was indexed with (searched). */
  title: string;
  /** Its conversation's title now (a transcript's later title line renames the conversation only). */
  conversationTitle: string | null;
  /** The document's search text (its snippet is cut from it once the hits are chosen). */
  body: string;
  /** Lower is better (bm25 convention); plain engine ranks by time only. */
  score: number;
}

export interface EngineSearch {
  /** Planner terms: lower-case tokens, or stem prefixes ending in `*` (stem.ts). */
  terms: string[];
  /** all: every term must occur; any: at least one. */
  match: "all" | "any";
  filters: DocumentFilters;
  limit: number;
  /** Document ids already returned by a stricter pass. */
  excludeIds?: readonly number[];
  /** Rows the impact plan may score before it settles for an approximate answer (planner.ts). */
  maxScored?: number;
}
