import { CJK_SEPARATOR } from "../projection/cjk.js";
import type { Db } from "../store/open.js";
import { pluckedStatement, statement } from "../store/statements.js";
import { documentBody, recordTextColumn, type StoredBody } from "../store/document-text.js";
import { containsPhrase, foldedTokens } from "./bm25.js";
import { rankDocuments, type RankResult } from "./planner.js";
import { CHAT_WEIGHTS } from "./weights.js";
import { ftsPhrase, phraseTokens } from "./query.js";
import { excerpt } from "./excerpt.js";
import { prefixTerm } from "./stem.js";

/** One ranked message of the current app's chats, before grouping. */
export interface ChatCandidate {
  /** The index document (differs from the message id in standalone mode). */
  docId: number;
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
  /** The indexed source the app belongs to: EMBEDDED_CHAT_SOURCE, or a standalone Dyad database. */
  source: string;
  appId: number;
  /** The caller's own chat, excluded from search. */
  excludeChatId: number | null;
}

/** How many ranked messages the post-processing sees (grouping needs more than `limit`). */
export const CANDIDATE_WINDOW = 200;
/** Excerpt length in tokens (FTS5 snippet()); excerpts are also bounded in code points (excerpt.ts). */
export const EXCERPT_TOKENS = 14;
/** The longest exact phrase, in tokens, the phrase bonus checks. */
export const MAX_PHRASE_TOKENS = 32;

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
    where: ["d.app_id = ?", "d.source = ?", "d.chat_id IS NOT ?"],
    params: [scope.appId, scope.source, scope.excludeChatId],
    limit: CANDIDATE_WINDOW,
    weights: CHAT_WEIGHTS,
  });
  if (ranked.rows.length === 0) return { candidates: [], plan: ranked.plan, exact: ranked.exact };
  const rows = statement(
    db,
    `SELECT d.id AS docId, CAST(d.message AS INTEGER) AS messageId, d.chat_id AS chatId, d.role, d.title,
       d.is_compaction_summary AS isCompactionSummary, d.projection_truncated AS projectionTruncated
     FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
  ).all(JSON.stringify(ranked.rows.map((r) => r.id))) as {
    docId: number;
    messageId: number;
    chatId: number;
    role: string;
    title: string;
    isCompactionSummary: number;
    projectionTruncated: number;
  }[];
  const byId = new Map(rows.map((r) => [r.docId, r]));
  const candidates: ChatCandidate[] = [];
  for (const r of ranked.rows) {
    const d = byId.get(r.id);
    if (!d) continue;
    candidates.push({
      ...d,
      // Titles are searched with CJK characters separated (projection/cjk.ts), shown as written.
      title: d.title.replaceAll(CJK_SEPARATOR, ""),
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
 * The exact phrase of a search_chats query: its tokens in order, stopwords and repeats kept
 * (unlike its search terms, chat-query.ts), at most MAX_PHRASE_TOKENS (a longer query's first).
 */
export function chatPhraseTokens(query: string): string[] {
  return phraseTokens(query, MAX_PHRASE_TOKENS);
}

/**
 * Which of the candidates (already scoped) also contain the whole query as an exact phrase (the
 * tokens adjacent and in order, inside the title or the body), as message ids. Rows are checked
 * on their own text when it holds only characters whose folding bm25.ts reproduces exactly
 * (ASCII query tokens); FTS5 checks the others by rowid.
 */
export function phraseMatches(
  db: Db,
  tokens: readonly string[],
  candidates: readonly ChatCandidate[],
): Set<number> {
  if (tokens.length < 2 || candidates.length === 0) return new Set();
  const found = new Set<number>();
  let ask: readonly number[] = candidates.map((c) => c.docId);
  if (tokens.every((t) => /^[a-z0-9]+$/.test(t))) {
    const rows = statement(
      db,
      `SELECT d.id, d.title, d.body, ${recordTextColumn(db)}
       FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
    ).all(JSON.stringify(ask)) as ({ id: number; title: string } & StoredBody)[];
    const unknown: number[] = [];
    for (const row of rows) {
      const title = foldedTokens(row.title);
      const body = foldedTokens(documentBody(row));
      if (!title || !body) unknown.push(row.id);
      else if (containsPhrase(title, tokens) || containsPhrase(body, tokens)) found.add(row.id);
    }
    ask = unknown;
  }
  if (ask.length > 0) {
    const rows = pluckedStatement(
      db,
      "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
    ).all(ftsPhrase(tokens), JSON.stringify(ask)) as number[];
    for (const id of rows) found.add(id);
  }
  return new Set(candidates.filter((c) => found.has(c.docId)).map((c) => c.messageId));
}

/** The terms excerpts centre on: the query tokens and their prefix terms. */
export function chatExcerptTerms(tokens: readonly string[]): string[] {
  // A CJK phrase term ("検 索") centres on its characters, the tokens excerpts see.
  const words = tokens.flatMap((t) => t.split(" "));
  return [...new Set([...words, ...chatSearchTerms(tokens)])];
}

/**
 * Excerpts of candidates by message id: EXCERPT_TOKENS tokens of the body around the query's
 * terms (prefix terms included), at most EXCERPT_MAX_CHARS code points, computed from the text
 * (excerpt.ts) rather than by FTS5's snippet(), which would look each id up in the index again.
 */
export function chatExcerpts(
  db: Db,
  tokens: readonly string[],
  candidates: readonly ChatCandidate[],
): (messageIds: readonly number[]) => Map<number, string> {
  const docOf = new Map(candidates.map((c) => [c.messageId, c.docId]));
  const terms = chatExcerptTerms(tokens);
  const read = statement(
    db,
    `SELECT d.id, d.body, ${recordTextColumn(db)} FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`,
  );
  return (messageIds) => {
    const ids = messageIds.map((m) => docOf.get(m)).filter((d) => d !== undefined);
    if (tokens.length === 0 || ids.length === 0) return new Map();
    const rows = read.all(JSON.stringify(ids)) as ({ id: number } & StoredBody)[];
    const bodies = new Map(rows.map((r) => [r.id, documentBody(r)]));
    const out = new Map<number, string>();
    for (const m of messageIds) {
      const body = bodies.get(docOf.get(m) ?? -1);
      if (body !== undefined) out.set(m, excerpt(body, terms, EXCERPT_TOKENS));
    }
    return out;
  };
}

/**
 * Each chat's latest indexed message time (epoch ms) in the scope, from the index itself: a
 * standalone source's database is read-only and has no index on messages(chat_id).
 */
export function indexedLastMessageTimes(
  db: Db,
  scope: Pick<ChatScope, "source" | "appId">,
  chatIds: readonly number[],
): Map<number, number> {
  if (chatIds.length === 0) return new Map();
  const rows = statement(
    db,
    `SELECT d.chat_id AS chatId, max(d.at) AS at FROM json_each(?) j
     CROSS JOIN recall_documents d ON d.app_id = ? AND d.chat_id = j.value
     WHERE d.source = ? GROUP BY d.chat_id`,
  ).all(JSON.stringify(chatIds), scope.appId, scope.source) as { chatId: number; at: number }[];
  return new Map(rows.map((r) => [r.chatId, r.at]));
}
