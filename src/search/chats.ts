import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { containsPhrase, foldedTokens } from "./bm25.js";
import { rankDocuments, type RankResult } from "./planner.js";
import { ftsPhrase } from "./query.js";
import { excerpt } from "./excerpt.js";
import { prefixTerm } from "./stem.js";

/** One ranked message of the current app's chats, before grouping. */
export interface ChatCandidate {
  messageId: number;
  chatId: number;
  role: string;
  at: number;
  title: string;
  isCompactionSummary: boolean;
  projectionTruncated: boolean;
  /** bm25: lower is better. */
  score: number;
}

export interface ChatScope {
  appId: number;
  /** The caller's own chat, excluded from search. */
  excludeChatId: number | null;
}

/** How many ranked messages the post-processing sees (grouping needs more than `limit`). */
export const CANDIDATE_WINDOW = 200;
/** Excerpt length in tokens (FTS5 snippet()). */
export const EXCERPT_TOKENS = 14;

export interface ChatCandidates {
  candidates: ChatCandidate[];
  plan: RankResult["plan"];
  exact: boolean;
}

/** search_chats' ranked terms for its query tokens: inflected words become stem prefixes (stem.ts). */
export function chatSearchTerms(tokens: readonly string[]): string[] {
  return [...new Set(tokens.map(prefixTerm))];
}

/**
 * The bm25-ranked OR search inside one app (search_chats' candidate window) over the tokens'
 * search terms: app scope and chat exclusion are conditions of the ranking itself (planner.ts),
 * never a filter after a cut.
 */
export function rankChatCandidates(db: Db, tokens: readonly string[], scope: ChatScope): ChatCandidates {
  const ranked = rankDocuments(db, {
    terms: chatSearchTerms(tokens),
    match: "any",
    where: ["d.app_id = ?", "d.chat_id IS NOT ?"],
    params: [scope.appId, scope.excludeChatId],
    limit: CANDIDATE_WINDOW,
  });
  if (ranked.rows.length === 0) return { candidates: [], plan: ranked.plan, exact: ranked.exact };
  const rows = statement(
    db,
    `SELECT d.id AS messageId, d.chat_id AS chatId, d.role, d.title,
       d.is_compaction_summary AS isCompactionSummary, d.projection_truncated AS projectionTruncated
     FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
  ).all(JSON.stringify(ranked.rows.map((r) => r.id))) as {
    messageId: number;
    chatId: number;
    role: string;
    title: string;
    isCompactionSummary: number;
    projectionTruncated: number;
  }[];
  const byId = new Map(rows.map((r) => [r.messageId, r]));
  const candidates: ChatCandidate[] = [];
  for (const r of ranked.rows) {
    const d = byId.get(r.id);
    if (!d) continue;
    candidates.push({
      ...d,
      at: r.at,
      score: r.score,
      isCompactionSummary: d.isCompactionSummary === 1,
      projectionTruncated: d.projectionTruncated === 1,
    });
  }
  return { candidates, plan: ranked.plan, exact: ranked.exact };
}

export function chatCandidates(db: Db, tokens: readonly string[], scope: ChatScope): ChatCandidate[] {
  return rankChatCandidates(db, tokens, scope).candidates;
}

/**
 * Which of the candidates (already scoped) also contain the whole query as an exact phrase (the
 * tokens adjacent and in order, inside the title or the body). Rows are checked on their own text
 * when it holds only characters whose folding bm25.ts reproduces exactly (ASCII query tokens);
 * FTS5 checks the others by rowid.
 */
export function phraseMatches(
  db: Db,
  tokens: readonly string[],
  _scope: ChatScope,
  ids: readonly number[],
): Set<number> {
  if (tokens.length < 2 || ids.length === 0) return new Set();
  const out = new Set<number>();
  let ask: readonly number[] = ids;
  if (tokens.every((t) => /^[a-z0-9]+$/.test(t))) {
    const rows = statement(
      db,
      "SELECT d.id, d.title, d.body FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value",
    ).all(JSON.stringify(ids)) as { id: number; title: string; body: string }[];
    const unknown: number[] = [];
    for (const row of rows) {
      const title = foldedTokens(row.title);
      const body = foldedTokens(row.body);
      if (!title || !body) unknown.push(row.id);
      else if (containsPhrase(title, tokens) || containsPhrase(body, tokens)) out.add(row.id);
    }
    ask = unknown;
  }
  if (ask.length === 0) return out;
  const rows = statement(
    db,
    "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
  )
    .pluck()
    .all(ftsPhrase(tokens), JSON.stringify(ask)) as number[];
  for (const id of rows) out.add(id);
  return out;
}

/**
 * Excerpts of the given candidates: EXCERPT_TOKENS tokens of the body around the query's terms
 * (prefix terms included), computed from the text (excerpt.ts) rather than by FTS5's snippet(),
 * which would look each id up in the index again.
 */
export function chatExcerpts(db: Db, tokens: readonly string[], ids: readonly number[]): Map<number, string> {
  if (tokens.length === 0 || ids.length === 0) return new Map();
  const terms = [...new Set([...tokens, ...chatSearchTerms(tokens)])];
  const rows = statement(
    db,
    "SELECT d.id, d.body FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value",
  ).all(JSON.stringify(ids)) as { id: number; body: string }[];
  return new Map(rows.map((r) => [r.id, excerpt(r.body, terms, EXCERPT_TOKENS)]));
}
