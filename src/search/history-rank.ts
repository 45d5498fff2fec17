import { containsPhrase } from "./bm25.js";
import type { QueryUnit } from "./history-query.js";

/**
 * search_history's ordering of a pass's candidate window, as pure functions of the candidates'
 * bm25 scores and tokens (bm25.ts foldedTokens of title and body):
 * - within a pass, conversation turns come before tool output (previews of tool results and
 *   written files, role `tool`), which is noisier and longer;
 * - an identifier or CJK unit found as a phrase, then a word found in the exact form typed, rank
 *   above matches that only hold the parts or the stem (bonuses below, on bm25's scale);
 * - relaxed hits are ordered by their conversation's evidence: the best match plus 0.3 × the
 *   second (chat-rank.ts's rule for search_chats), each conversation contributing at most two
 *   hits before any contributes a third.
 * The relaxed pass also drops candidates that hold no whole unit (only some parts of an
 * identifier), so one generic part of an identifier never carries a hit alone.
 */

export interface Candidate {
  id: number;
  at: number;
  /** bm25: lower is better. */
  score: number;
  conversation: string | null;
  role: string;
  /** Folded tokens of title and body, or null when their folding is unknown (then taken as matching). */
  tokens: string[] | null;
}

/** Added to bm25 (lower is better) for each identifier or CJK unit found as a phrase. */
export const PHRASE_BONUS = -1.0;
/**
 * Added for each word found in its exact form (not only through its stem). LoCoMo through
 * search_history (npm run bench): session hit@1 68.4 % without it, 72.4 % at -0.5, 72.6 % at -1.
 */
export const EXACT_FORM_BONUS = -1.0;
/** Conversation evidence: best match + DECAY × second (chat-rank.ts CHAT_SCORE_DECAY). */
export const CONVERSATION_DECAY = 0.3;
/** Hits one conversation gives before every other conversation has given as many. */
export const HITS_PER_CONVERSATION = 2;

type UnitMatch = "none" | "partial" | "stem" | "exact";

/** How a candidate's tokens hold one unit. */
export function unitMatch(tokens: readonly string[] | null, unit: QueryUnit): UnitMatch {
  if (tokens === null) return "stem";
  if (unit.phrase) {
    const present = unit.exact.filter((p) => tokens.includes(p)).length;
    if (present === unit.exact.length) return containsPhrase(tokens, unit.exact) ? "exact" : "stem";
    return present > 0 ? "partial" : "none";
  }
  const word = unit.exact[0]!;
  if (tokens.includes(word)) return "exact";
  const term = unit.terms[0]!;
  if (term.endsWith("*")) {
    const stem = term.slice(0, -1);
    if (tokens.some((t) => t.startsWith(stem))) return "stem";
  }
  return "none";
}

export interface Adjusted extends Candidate {
  adjusted: number;
  /** Whether the candidate holds at least one whole unit (relaxed hits must). */
  whole: boolean;
}

export function adjust(candidate: Candidate, units: readonly QueryUnit[]): Adjusted {
  let adjusted = candidate.score;
  let whole = false;
  for (const unit of units) {
    const m = unitMatch(candidate.tokens, unit);
    if (m === "stem" || m === "exact") whole = true;
    if (m === "exact") adjusted += unit.phrase ? PHRASE_BONUS : EXACT_FORM_BONUS;
  }
  return { ...candidate, adjusted, whole };
}

const byAdjusted = (a: Adjusted, b: Adjusted) => a.adjusted - b.adjusted || b.at - a.at || b.id - a.id;

/** Candidates grouped by conversation, conversations by evidence, at most HITS_PER_CONVERSATION each first. */
export function byConversation(candidates: readonly Adjusted[]): Adjusted[] {
  const sorted = [...candidates].sort(byAdjusted);
  const groups = new Map<string, { score: number; first: number; members: Adjusted[] }>();
  sorted.forEach((c, i) => {
    const key = c.conversation ?? `#${c.id}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { score: 0, first: i, members: [] }));
    if (g.members.length < 2) g.score += c.adjusted * CONVERSATION_DECAY ** g.members.length;
    g.members.push(c);
  });
  const ordered = [...groups.values()].sort((a, b) => a.score - b.score || a.first - b.first);
  const out: Adjusted[] = [];
  for (let round = 0; out.length < sorted.length; round++) {
    for (const g of ordered) {
      const from = round * HITS_PER_CONVERSATION;
      out.push(...g.members.slice(from, from + HITS_PER_CONVERSATION));
    }
  }
  return out;
}

/**
 * One pass's order: turns before tool output. The strict pass ranks each candidate on its own
 * (every candidate holds every word: a conversation's many weak matches, through its title say,
 * must not bury one message that holds them all); the relaxed pass keeps only candidates
 * holding a whole unit and ranks them by conversation evidence, since a question's words are
 * spread over a conversation's messages.
 */
export function orderPass(
  candidates: readonly Candidate[],
  units: readonly QueryUnit[],
  relaxed: boolean,
): Adjusted[] {
  const adjusted = candidates.map((c) => adjust(c, units)).filter((c) => !relaxed || c.whole);
  const order = relaxed ? byConversation : (list: Adjusted[]) => list.sort(byAdjusted);
  return [
    ...order(adjusted.filter((c) => c.role !== "tool")),
    ...order(adjusted.filter((c) => c.role === "tool")),
  ];
}
