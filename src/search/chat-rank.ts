import type { ChatCandidate } from "./chats.js";

/** Score adjustments (bm25: lower is better). */
export const PHRASE_BONUS = -1.0;
export const COMPACTION_PENALTY = 0.5;
export const MAX_MATCHES_PER_CHAT = 2;

export interface RankedMatch extends ChatCandidate {
  adjusted: number;
}

export interface RankedChat {
  chatId: number;
  title: string;
  matches: RankedMatch[];
}

const normalise = (s: string) => s.replace(/…/g, "").replace(/\s+/g, " ").trim().toLowerCase();

/** A compaction summary excerpt that repeats a kept excerpt adds nothing; neither does an identical one. */
function duplicates(candidate: RankedMatch, kept: readonly RankedMatch[]): boolean {
  const text = normalise(candidate.excerpt);
  return kept.some((k) => {
    const other = normalise(k.excerpt);
    if (text === other) return true;
    return (candidate.isCompactionSummary || k.isCompactionSummary) && (other.includes(text) || text.includes(other));
  });
}

export function compareMatches(a: RankedMatch, b: RankedMatch): number {
  return a.adjusted - b.adjusted || b.at - a.at || b.messageId - a.messageId;
}

/**
 * The plan's post-processing, as a pure function: phrase bonus and compaction penalty,
 * deterministic order (score, then newer, then higher id), grouping by chat with at most two
 * materially distinct matches, chats ordered by their best match.
 */
export function rankChats(candidates: readonly ChatCandidate[], phraseIds: ReadonlySet<number>, limit: number): RankedChat[] {
  const adjusted: RankedMatch[] = candidates.map((c) => ({
    ...c,
    adjusted: c.score + (phraseIds.has(c.messageId) ? PHRASE_BONUS : 0) + (c.isCompactionSummary ? COMPACTION_PENALTY : 0),
  }));
  adjusted.sort(compareMatches);
  const chats = new Map<number, RankedChat>();
  for (const match of adjusted) {
    let chat = chats.get(match.chatId);
    if (!chat) {
      if (chats.size >= limit) continue;
      chat = { chatId: match.chatId, title: match.title, matches: [] };
      chats.set(match.chatId, chat);
    }
    if (chat.matches.length >= MAX_MATCHES_PER_CHAT || duplicates(match, chat.matches)) continue;
    chat.matches.push(match);
  }
  return [...chats.values()];
}
