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
  title: string;
  /** Plain-text excerpt around the match. */
  snippet: string;
  /** Lower is better (bm25 convention); plain engine ranks by time only. */
  score: number;
}

export interface EngineSearch {
  tokens: string[];
  /** all: every token must occur; any: at least one. */
  match: "all" | "any";
  filters: DocumentFilters;
  limit: number;
  /** Document ids already returned by a stricter pass. */
  excludeIds?: readonly number[];
  /** Rows the impact plan may score before it settles for an approximate answer (planner.ts). */
  maxScored?: number;
}
