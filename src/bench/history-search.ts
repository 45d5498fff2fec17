import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import { documentIdOfHit } from "../store/hit-ids.js";
import { createGetConversationTool } from "../tools/get-conversation.js";
import { runTool } from "../tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../tools/search-history.js";
import { planFigures, runClass, type PlanFigures } from "./fidelity.js";
import { countTerms } from "../search/bm25.js";
import { queryTokens } from "../search/query.js";
import { documentBody, RECORD_TEXT_COLUMN, type StoredBody } from "../store/document-text.js";
import { distribution, fig, round, timeAsync, type Distribution, type Figure } from "./measure.js";
import type { BenchQuery, QueryClass } from "./queries.js";

export interface HistoryClassFigures {
  latency: Distribution;
  firstPass: Distribution;
  /** Rare and mixed classes: share of queries with a hit carrying the planted token. */
  needleFound?: Figure;
  /**
   * Of the strict (AND) hits in each top 10, the share whose own message holds every query word;
   * the rest match through their conversation's title. Mean over the class's queries that have
   * any strict hit.
   */
  ownWords?: Figure;
  fidelity: PlanFigures;
}

export interface HistorySearchFigures {
  classes: Partial<Record<QueryClass, HistoryClassFigures>>;
  /** get_conversation, first page (20 records) of a hit's conversation. */
  conversationPage: Distribution;
}

export const SEARCH_HISTORY_LIMIT = 10;

/** search_history per query class (filters inside the ranking) and get_conversation pages. */
export async function benchHistorySearch(
  db: Db,
  engine: Engine,
  queries: Partial<Record<QueryClass, BenchQuery[]>>,
  fidelitySample: number,
): Promise<HistorySearchFigures> {
  const searchTool = createSearchHistoryTool(db, engine);
  const conversationTool = createGetConversationTool(db);
  const search = async (q: BenchQuery) =>
    JSON.parse(
      await runTool(
        searchTool,
        { query: q.text, limit: SEARCH_HISTORY_LIMIT, ...(q.filters ? { filters: q.filters } : {}) },
        {},
      ),
    ) as SearchHistoryOutput;
  const classes: Partial<Record<QueryClass, HistoryClassFigures>> = {};
  const conversations: string[] = [];
  for (const cls of ["rare", "mixed", "common", "identifier", "filtered"] as const) {
    const list = queries[cls] ?? [];
    if (list.length === 0) continue;
    const run = await runClass(db, list, search);
    const figures: HistoryClassFigures = {
      latency: distribution(run.warm),
      firstPass: distribution(run.first),
      fidelity: await planFigures(db, list, run, search, (out) => out.hits.map((h) => h.id), fidelitySample),
    };
    if (cls === "rare" || cls === "mixed") {
      let found = 0;
      run.results.forEach((out, i) => {
        const token = list[i]!.needle?.token.toLowerCase();
        if (token && out.hits.some((h) => h.snippet.toLowerCase().includes(token))) found++;
      });
      figures.needleFound = fig(round(found / list.length), "share of queries");
    }
    figures.ownWords = ownWordsShare(db, list, run.results);
    for (const out of run.results) {
      const c = out.hits[0]?.conversation;
      if (c) conversations.push(c);
    }
    classes[cls] = figures;
  }
  const pages: number[] = [];
  for (const id of conversations.slice(0, 400)) {
    pages.push((await timeAsync(() => runTool(conversationTool, { id, limit: 20 }, {}))).ms);
  }
  return { classes, conversationPage: distribution(pages) };
}

function ownWordsShare(db: Db, list: readonly BenchQuery[], results: readonly SearchHistoryOutput[]): Figure {
  // A document's text is its own body, or its record's read text when the body is '' (schema v10).
  const body = db.prepare(
    `SELECT d.body AS body, ${RECORD_TEXT_COLUMN} FROM recall_documents d WHERE d.id = ?`,
  );
  const shares: number[] = [];
  results.forEach((out, i) => {
    const strict = out.hits.filter((h) => h.relaxed !== true);
    if (strict.length === 0) return;
    const terms = queryTokens(list[i]!.text);
    let own = 0;
    for (const hit of strict) {
      const counts = new Array<number>(terms.length).fill(0);
      const id = documentIdOfHit(db, hit.id);
      const row = id === undefined ? undefined : (body.get(id) as StoredBody | undefined);
      const text = row ? documentBody(row) : "";
      if (countTerms(text, terms, 1, counts) && counts.every((n) => n > 0)) own++;
    }
    shares.push(own / strict.length);
  });
  const mean = shares.length === 0 ? 0 : shares.reduce((a, b) => a + b, 0) / shares.length;
  return fig(round(mean), "share of strict hits");
}
