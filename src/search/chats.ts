import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { BODY_WEIGHT, TITLE_WEIGHT } from "./engines/fts5.js";
import { ftsAny, ftsPhrase } from "./query.js";

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
  excerpt: string;
}

export interface ChatScope {
  appId: number;
  /** The caller's own chat, excluded from search. */
  excludeChatId: number | null;
}

/** How many ranked messages the post-processing sees (grouping needs more than `limit`). */
export const CANDIDATE_WINDOW = 200;

const CANDIDATES = `
  SELECT d.id AS messageId, d.chat_id AS chatId, d.role, d.at, d.title,
    d.is_compaction_summary AS isCompactionSummary, d.projection_truncated AS projectionTruncated,
    bm25(recall_fts, ${TITLE_WEIGHT}, ${BODY_WEIGHT}) AS score,
    snippet(recall_fts, 1, '', '', '…', 14) AS excerpt
  FROM recall_fts JOIN recall_documents d ON d.id = recall_fts.rowid
  WHERE recall_fts MATCH ? AND d.app_id = ? AND d.chat_id IS NOT ?
  ORDER BY score, d.at DESC, d.id DESC
  LIMIT ?`;

/** bm25-ranked OR search inside one app, app scope and chat exclusion inside the ranked query. */
export function chatCandidates(db: Db, terms: readonly string[], scope: ChatScope): ChatCandidate[] {
  if (terms.length === 0) return [];
  const rows = statement(db, CANDIDATES).all(ftsAny(terms), scope.appId, scope.excludeChatId, CANDIDATE_WINDOW) as (Omit<
    ChatCandidate,
    "isCompactionSummary" | "projectionTruncated"
  > & { isCompactionSummary: number; projectionTruncated: number })[];
  return rows.map((r) => ({ ...r, isCompactionSummary: r.isCompactionSummary === 1, projectionTruncated: r.projectionTruncated === 1 }));
}

/** Which of the candidates also contain the whole query as an exact phrase. */
export function phraseMatches(db: Db, terms: readonly string[], scope: ChatScope, ids: readonly number[]): Set<number> {
  if (terms.length < 2 || ids.length === 0) return new Set();
  const rows = statement(
    db,
    `SELECT d.id FROM recall_fts JOIN recall_documents d ON d.id = recall_fts.rowid
     WHERE recall_fts MATCH ? AND d.app_id = ? AND d.chat_id IS NOT ? AND d.id IN (${ids.map(() => "?").join(",")})`,
  ).all(ftsPhrase(terms), scope.appId, scope.excludeChatId, ...ids) as { id: number }[];
  return new Set(rows.map((r) => r.id));
}
