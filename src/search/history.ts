import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import { searchFts5 } from "./engines/fts5.js";
import { searchPlain, excerptAround, substrings } from "./engines/plain.js";
import type { EngineSearch, RankedDocument } from "./engines/types.js";
import { CJK_SEPARATOR } from "../projection/cjk.js";
import { excerpt } from "./excerpt.js";
import type { DocumentFilters } from "./filters.js";
import { compileHistoryQuery, type HistoryQuery } from "./history-query.js";
import { orderPass } from "./history-rank.js";
import { navigationLink, sourceLink } from "./links.js";
import { boundSnippet, SNIPPET_MAX_CHARS } from "./snippet.js";
import { rowsHoldDocuments } from "../store/record-rows.js";
import { hasTableOnce } from "../store/statements.js";

/** search_history reads at most 32 terms; later ones are ignored, not an error. */
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
  /** Who wrote it: user, assistant, tool (a tool output or written file's preview), or a bridge kind's role. */
  role: string;
  /** The conversation's title, or null. */
  title: string | null;
  /** Present (true) on hits found by the OR-relaxed pass after the strict AND pass. */
  relaxed?: true;
  /** Present (true) on hits from sessions written to in the last 10 minutes. */
  active?: true;
}

export interface HistorySearchResult {
  engine: Engine;
  hits: HistoryHit[];
}

/**
 * Candidates the relaxed pass ranks before ordering them by conversation evidence
 * (history-rank.ts): a window wider than `limit`, so a conversation's second match is seen.
 * LoCoMo through MCP gave the same session hit@1 with 30 as with 100 (73.1 and 72.8 %). The
 * strict passes rank `limit` rows and order those: at 1M messages a strict window of 15 or 30
 * sent common-word queries (with a filter above all) to the planner's fallback, since the impact
 * lists seldom hold that many rows with every word (common p95 37 → 107 ms at 30; filtered p95
 * 58 → 100 ms at 15).
 */
export const RELAXED_WINDOW = 30;
/** Snippet length in tokens around the matches (then bounded to 320 characters). */
export const SNIPPET_TOKENS = 48;

function runEngine(db: Db, engine: Engine, request: EngineSearch): RankedDocument[] {
  return engine === "fts5" ? searchFts5(db, request) : searchPlain(db, request);
}

/** Whether the index has schema v2's participants table (a reader may face an older index). */
const hasParticipants = (db: Db): boolean => hasTableOnce(db, "recall_document_participants");

/** The projection separates CJK characters with U+200B for the tokenizer (projection/cjk.ts); text shown drops it. */
const shown = (text: string) => text.replaceAll(CJK_SEPARATOR, "");

/** A hit's snippet: the best window around the query's words (exported for the team search). */
export function snippetOf(doc: RankedDocument, engine: Engine, query: HistoryQuery): string {
  const exact = query.units.flatMap((u) => u.exact);
  const text =
    engine === "fts5"
      ? excerpt(doc.body, [...new Set([...exact, ...query.terms])], SNIPPET_TOKENS, SNIPPET_MAX_CHARS)
      : excerptAround(doc.body, substrings(query.terms));
  return boundSnippet(shown(text));
}

export function toHit(doc: RankedDocument, relaxed: boolean, snippet: string): HistoryHit {
  const hit: HistoryHit = {
    id: doc.hitId,
    kind: doc.kind,
    agent: doc.agent,
    at: doc.at,
    snippet,
    link: navigationLink({ ...doc, id: doc.hitId }),
    sourceLink: sourceLink(doc.hitId),
    message: doc.message,
    job: doc.job,
    run: doc.run,
    session: doc.session,
    cursor: doc.cursor,
    conversation: doc.conversation,
    project: doc.project,
    role: doc.role,
    title: doc.conversationTitle ?? (doc.title === "" ? null : shown(doc.title)),
  };
  if (relaxed) hit.relaxed = true;
  return hit;
}

/** One pass's documents in search_history's order (history-rank.ts). */
export function ordered(
  docs: readonly RankedDocument[],
  query: HistoryQuery,
  relaxed: boolean,
): RankedDocument[] {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const candidates = docs.map((d) => ({
    id: d.id,
    at: d.at,
    score: d.score,
    conversation: d.conversation,
    role: d.role,
    text: `${d.title}\n${d.body}`,
  }));
  return orderPass(candidates, query.units, relaxed).map((c) => byId.get(c.id)!);
}

/**
 * Strict AND over the query's words as typed, then over their stems to fill; when those yield
 * fewer than `limit` hits, OR-relaxed hits follow, each marked relaxed, so natural-language
 * questions still find something. Each pass ranks by bm25 and orders its rows as
 * history-rank.ts says (the relaxed pass a wider window, RELAXED_WINDOW).
 */
export function searchHistory(
  db: Db,
  engine: Engine,
  query: string,
  filters: DocumentFilters,
  limit: number,
): HistorySearchResult {
  const compiled = compileHistoryQuery(query, MAX_QUERY_TOKENS);
  const { terms, exactTerms, units } = compiled;
  if (filters.sessions !== undefined && !hasParticipants(db)) filters = { ...filters, participants: false };
  if (filters.sessions !== undefined && rowsHoldDocuments(db))
    filters = { ...filters, conversationRefs: true };
  const order = (docs: RankedDocument[], relaxed: boolean) =>
    engine === "fts5" ? ordered(docs, compiled, relaxed) : docs;
  // Every word as typed first; other forms of the words only when those are too few. Prefix
  // terms cost more to rank (FTS5 merges every token they cover), and an exact form outranks
  // another one.
  const strict = order(runEngine(db, engine, { terms: exactTerms, match: "all", filters, limit }), false);
  if (strict.length < limit && exactTerms.join(" ") !== terms.join(" ")) {
    const forms = runEngine(db, engine, {
      terms,
      match: "all",
      filters,
      limit: limit - strict.length,
      excludeIds: strict.map((d) => d.id),
    });
    strict.push(...order(forms, false));
  }
  const hits = strict.map((d) => toHit(d, false, snippetOf(d, engine, compiled)));
  if (hits.length < limit && units.length > 1) {
    const relaxed = runEngine(db, engine, {
      terms,
      match: "any",
      filters,
      limit: engine === "fts5" ? Math.max(limit, RELAXED_WINDOW) : limit - hits.length,
      excludeIds: strict.map((d) => d.id),
      maxScored: RELAXED_MAX_SCORED,
    });
    const more = order(relaxed, true).slice(0, limit - hits.length);
    hits.push(...more.map((d) => toHit(d, true, snippetOf(d, engine, compiled))));
  }
  return { engine, hits };
}
