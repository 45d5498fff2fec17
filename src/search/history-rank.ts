import { containsPhrase, countTerms, foldedTokens, foldForMatching } from "./bm25.js";
import type { QueryUnit } from "./history-query.js";

/**
 * search_history's ordering of a pass's candidate window, as pure functions of the candidates'
 * bm25 scores and text (title and body, counted as unicode61 tokenizes them: bm25.ts):
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
  /** Title and body as searched. */
  text: string;
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

/**
 * The terms a unit's match is told by (a word's exact form then its stem, an identifier's parts),
 * folded as unicode61 folds text ("café" → "cafe"); null when a part's folding is unknown.
 */
function probesOf(unit: QueryUnit): string[] | null {
  const terms = unit.phrase ? unit.exact : [unit.exact[0]!, ...unit.terms.filter((t) => t.endsWith("*"))];
  const folded = terms.map(foldForMatching);
  return folded.every((t) => t !== null && !UNKNOWN_FOLDING.test(t)) ? (folded as string[]) : null;
}
/** bm25.ts's stand-ins for characters of unknown folding (private use U+E000, U+E001). */
const UNKNOWN_FOLDING = /[\uE000\uE001]/;

/**
 * How a candidate's text holds each unit. Occurrences are counted as FTS5 counts them
 * (bm25.ts countTerms, one pass per term over the text); the text is split into tokens only to
 * check that an identifier's parts, all present, are adjacent. A text whose folding is unknown
 * counts as holding every unit through its stem (FTS5 matched it; no bonus is given).
 */
export function unitMatches(text: string, units: readonly QueryUnit[]): UnitMatch[] {
  const probes = units.map(probesOf);
  if (probes.some((p) => p === null)) return units.map(() => "stem");
  const flat = (probes as string[][]).flat();
  const counts = new Array<number>(flat.length).fill(0);
  if (!countTerms(text, flat, 1, counts)) return units.map(() => "stem");
  let tokens: string[] | null | undefined;
  let at = 0;
  return units.map((unit, u) => {
    const n = probes[u]!.length;
    const parts = probes[u]!;
    const found = counts.slice(at, (at += n));
    if (unit.phrase) {
      const present = found.filter((c) => c > 0).length;
      if (present < n) return present > 0 ? "partial" : "none";
      tokens ??= foldedTokens(text);
      return tokens === null || containsPhrase(tokens, parts) ? "exact" : "stem";
    }
    if (found[0]! > 0) return "exact";
    return found.slice(1).some((c) => c > 0) ? "stem" : "none";
  });
}

export interface Adjusted extends Candidate {
  adjusted: number;
  /** Whether the candidate holds at least one whole unit (relaxed hits must). */
  whole: boolean;
}

export function adjust(candidate: Candidate, units: readonly QueryUnit[]): Adjusted {
  let adjusted = candidate.score;
  let whole = false;
  unitMatches(candidate.text, units).forEach((m, u) => {
    if (m === "stem" || m === "exact") whole = true;
    if (m === "exact") adjusted += units[u]!.phrase ? PHRASE_BONUS : EXACT_FORM_BONUS;
  });
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
