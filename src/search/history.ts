import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import { searchFts5 } from "./engines/fts5.js";
import { searchPlain } from "./engines/plain.js";
import type { EngineSearch, RankedDocument } from "./engines/types.js";
import type { DocumentFilters } from "./filters.js";
import { navigationLink, sourceLink } from "./links.js";
import { queryTokens } from "./query.js";
import { boundSnippet } from "./snippet.js";

/** search_history reads at most 32 tokens; later ones are ignored, not an error. */
export const MAX_QUERY_TOKENS = 32;

/**
 * Rows the OR-relaxed pass may score before it settles for an approximate ranking (the strict
 * pass keeps planner.ts's IMPACT_MAX_SCORED, 2,048). Its hits fill a short strict answer and are
 * marked relaxed; when its words are common, no ranking of them can be proven without reading
 * thousands of rows. Measured at 1M messages, two generated corpora, the benchmark's 200 mixed
 * queries (a needle with neighbouring words; every one had relaxed hits), 2,048 rows against 512:
 * the top 10's mean overlap with exact bm25 0.994 against 0.983 and 0.984 against 0.966; p95
 * 16.5 against 10.6 ms and 27.1 against 13.9 ms (the second on a busy machine).
 */
export const RELAXED_MAX_SCORED = 512;

export interface HistoryHit {
  id: string;
  kind: string;
  agent: string;
  at: number;
  snippet: string;
  link: string;
  sourceLink: string;
  message: string | null;
  job: string | null;
  run: string | null;
  session: string | null;
  cursor: string | null;
  conversation: string | null;
  project: string | null;
  /** Present (true) on hits found by the OR-relaxed pass after the strict AND pass. */
  relaxed?: true;
  /** Present (true) on hits from sessions written to in the last 10 minutes. */
  active?: true;
}

export interface HistorySearchResult {
  engine: Engine;
  hits: HistoryHit[];
}

export function runEngine(db: Db, engine: Engine, request: EngineSearch): RankedDocument[] {
  return engine === "fts5" ? searchFts5(db, request) : searchPlain(db, request);
}

const participantTables = new WeakMap<Db, boolean>();

/** Whether the index has schema v2's participants table (a reader may face an older index). */
function hasParticipants(db: Db): boolean {
  let has = participantTables.get(db);
  if (has === undefined) {
    has =
      db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_document_participants'")
        .get() !== undefined;
    participantTables.set(db, has);
  }
  return has;
}

function toHit(doc: RankedDocument, relaxed: boolean): HistoryHit {
  const hit: HistoryHit = {
    id: doc.hitId,
    kind: doc.kind,
    agent: doc.agent,
    at: doc.at,
    snippet: boundSnippet(doc.snippet),
    link: navigationLink({ ...doc, id: doc.hitId }),
    sourceLink: sourceLink(doc.hitId),
    message: doc.message,
    job: doc.job,
    run: doc.run,
    session: doc.session,
    cursor: doc.cursor,
    conversation: doc.conversation,
    project: doc.project,
  };
  if (relaxed) hit.relaxed = true;
  return hit;
}

/**
 * Strict AND over the query's tokens first; when that yields fewer than `limit` hits, OR-relaxed
 * hits follow, each marked relaxed, so natural-language questions still find something.
 */
export function searchHistory(
  db: Db,
  engine: Engine,
  query: string,
  filters: DocumentFilters,
  limit: number,
): HistorySearchResult {
  const tokens = queryTokens(query, MAX_QUERY_TOKENS);
  if (filters.sessions !== undefined && !hasParticipants(db)) filters = { ...filters, participants: false };
  const strict = runEngine(db, engine, { tokens, match: "all", filters, limit });
  const hits = strict.map((d) => toHit(d, false));
  if (hits.length < limit && tokens.length > 1) {
    const relaxed = runEngine(db, engine, {
      tokens,
      match: "any",
      filters,
      limit: limit - hits.length,
      excludeIds: strict.map((d) => d.id),
      maxScored: RELAXED_MAX_SCORED,
    });
    hits.push(...relaxed.map((d) => toHit(d, true)));
  }
  return { engine, hits };
}
