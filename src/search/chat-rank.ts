import type { ChatCandidate } from "./chats.js";

/** Score adjustments (bm25: lower is better). */
export const PHRASE_BONUS = -1.0;
export const COMPACTION_PENALTY = 0.5;
export const MAX_MATCHES_PER_CHAT = 2;
/**
 * A chat's score aggregates its two best matches in the candidate window: best + 0.3 · second
 * (adjusted scores), so a chat that discusses the query in two messages outranks one mention of
 * equal strength, while one strong, rare match still beats many weak ones (the sum is at most
 * 1.3 × the best). Measured by `npm run bench`: LoCoMo session hit@1 +2.7 points over the best
 * match alone, and no planted needle of the 1M-message demo corpus lost (uncapped sums lost 9 %).
 * CHAT_SCORE_MATCHES = 1 is the seeds' "best message per chat" rule.
 */
export const CHAT_SCORE_DECAY = 0.3;
export const CHAT_SCORE_MATCHES = 2;
/** Excerpts fetched per round while grouping (they are only needed for matches grouping looks at). */
const EXCERPT_BATCH = 24;

export interface RankedMatch extends ChatCandidate {
  adjusted: number;
  excerpt: string;
}

export interface RankedChat {
  chatId: number;
  title: string;
  /** The chat's aggregated adjusted score (lower is better). */
  score: number;
  matches: RankedMatch[];
}

/** Excerpts for candidate ids (FTS5 snippet()); ids missing from the result get an empty excerpt. */
export type ExcerptSource = (ids: readonly number[]) => ReadonlyMap<number, string>;

const normalise = (s: string) => s.replace(/…/g, "").replace(/\s+/g, " ").trim().toLowerCase();

/** A compaction summary excerpt that repeats a kept excerpt adds nothing; neither does an identical one. */
function duplicates(candidate: RankedMatch, kept: readonly RankedMatch[]): boolean {
  const text = normalise(candidate.excerpt);
  return kept.some((k) => {
    const other = normalise(k.excerpt);
    if (text === other) return true;
    return (
      (candidate.isCompactionSummary || k.isCompactionSummary) &&
      (other.includes(text) || text.includes(other))
    );
  });
}

export function compareMatches(a: Pick<RankedMatch, "adjusted" | "at" | "messageId">, b: typeof a): number {
  return a.adjusted - b.adjusted || b.at - a.at || b.messageId - a.messageId;
}

/**
 * The plan's post-processing, as a pure function of the candidates and their excerpts: phrase
 * bonus and compaction penalty, deterministic order (score, then newer, then higher id), chats
 * ordered by their aggregated score (CHAT_SCORE_DECAY; ties: their best match's order), at most
 * two materially distinct matches per chat, best first. Excerpts are asked for only for the
 * matches grouping actually examines, a batch at a time.
 */
export function rankChats(
  candidates: readonly ChatCandidate[],
  phraseIds: ReadonlySet<number>,
  limit: number,
  excerpts: ExcerptSource,
): RankedChat[] {
  const adjusted = candidates.map((c) => ({
    ...c,
    adjusted:
      c.score +
      (phraseIds.has(c.messageId) ? PHRASE_BONUS : 0) +
      (c.isCompactionSummary ? COMPACTION_PENALTY : 0),
    excerpt: "",
  }));
  adjusted.sort(compareMatches);
  // Chats in order of aggregated score; each chat's matches stay in match order.
  const groups = new Map<number, { chat: RankedChat; first: number; members: RankedMatch[] }>();
  adjusted.forEach((m, i) => {
    let g = groups.get(m.chatId);
    if (!g)
      groups.set(
        m.chatId,
        (g = { chat: { chatId: m.chatId, title: m.title, score: 0, matches: [] }, first: i, members: [] }),
      );
    if (g.members.length < CHAT_SCORE_MATCHES)
      g.chat.score += m.adjusted * CHAT_SCORE_DECAY ** g.members.length;
    g.members.push(m);
  });
  const ordered = [...groups.values()]
    .sort((a, b) => a.chat.score - b.chat.score || a.first - b.first)
    .slice(0, limit);
  // Excerpts, a batch at a time, for the matches grouping is likely to look at (in chat order).
  const likely = ordered.flatMap((g) => g.members.slice(0, MAX_MATCHES_PER_CHAT + 1));
  const fetched = new Set<number>();
  const ensure = (m: RankedMatch) => {
    if (fetched.has(m.messageId)) return;
    const start = likely.indexOf(m);
    const want =
      start === -1
        ? [m]
        : likely
            .slice(start)
            .filter((x) => !fetched.has(x.messageId))
            .slice(0, EXCERPT_BATCH);
    const got = excerpts(want.map((x) => x.messageId));
    for (const x of want) {
      fetched.add(x.messageId);
      x.excerpt = got.get(x.messageId) ?? "";
    }
  };
  for (const g of ordered) {
    for (const m of g.members) {
      if (g.chat.matches.length >= MAX_MATCHES_PER_CHAT) break;
      ensure(m);
      if (!duplicates(m, g.chat.matches)) g.chat.matches.push(m);
    }
  }
  return ordered.map((g) => g.chat);
}
