import { z } from "zod";
import { RecallError } from "../core/errors.js";
import type { Db } from "../store/open.js";
import { readSnapshot } from "../store/snapshot.js";
import { EMBEDDED_CHAT_SOURCE } from "../core/kinds.js";
import {
  chatCandidates,
  chatExcerptTerms,
  chatExcerpts,
  chatPhraseTokens,
  indexedLastMessageTimes,
  phraseMatches,
  type ChatScope,
} from "../search/chats.js";
import { shortenExcerpt } from "../search/excerpt.js";
import { chatQueryTerms } from "../search/chat-query.js";
import { rankChats, type RankedChat } from "../search/chat-rank.js";
import { lastMessageTimes } from "../store/dyad-tables.js";
import { ARCHIVAL_NOTICE, type ToolContext, type ToolDefinition } from "./definition.js";
import { escapeXmlAttr, escapeXmlContent } from "./xml.js";
import type { ChatIndexState } from "./chat-index-state.js";
import { capChars } from "../projection/utf8.js";

export const SearchChatsInput = z
  .object({
    query: z.string().trim().min(1).max(500),
    limit: z.number().int().min(1).max(20).optional(),
  })
  .strict();
export type SearchChatsInput = z.infer<typeof SearchChatsInput>;

export const SEARCH_CHATS_DEFAULT_LIMIT = 8;
/** Total serialized output budget. */
export const SEARCH_CHATS_BUDGET_BYTES = 12 * 1024;
/** How long a search waits for an indexing run already under way. */
export const INDEX_WAIT_MS = 1000;
const TITLE_MAX_CHARS = 200;
/** The length, in code points, fitSearchOutput cuts excerpts to before it drops matches or chats. */
export const SHORT_EXCERPT_CHARS = 80;

export interface SearchChatsOutput {
  query: string;
  index_status: "ready" | "indexing";
  notice: string;
  results: {
    chat_id: number;
    title: string | null;
    last_message_at: string | null;
    matches: {
      message_id: number;
      role: string;
      created_at: string;
      excerpt: string;
      projection_truncated: boolean;
    }[];
  }[];
  results_truncated?: true;
  archival_content: true;
}

const iso = (ms: number) => new Date(ms).toISOString();
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The output cut to the serialized budget, least loss first: the longest excerpts shortened to
 * SHORT_EXCERPT_CHARS (around `terms`, the excerpts' query terms), then second matches dropped
 * from the last chat up, and only then whole chats from the end, so one huge message cannot
 * hide the other matching chats. Sets results_truncated when anything was cut.
 */
export function fitSearchOutput(
  output: SearchChatsOutput,
  budget = SEARCH_CHATS_BUDGET_BYTES,
  terms: readonly string[] = [],
): SearchChatsOutput {
  const fitted: SearchChatsOutput = {
    ...output,
    results: output.results.map((r) => ({ ...r, matches: r.matches.map((m) => ({ ...m })) })),
  };
  const over = () => bytes(fitted) > budget;
  if (!over()) return fitted;
  fitted.results_truncated = true;
  const matches = fitted.results.flatMap((r) => r.matches);
  while (over()) {
    // The longest excerpt still longer than the short bound; the later one on ties.
    let longest: (typeof matches)[number] | undefined;
    let longestBytes = 0;
    for (const m of matches) {
      const size = Buffer.byteLength(m.excerpt);
      if (size >= longestBytes && Array.from(m.excerpt).length > SHORT_EXCERPT_CHARS) {
        longest = m;
        longestBytes = size;
      }
    }
    if (!longest) break;
    longest.excerpt = shortenExcerpt(longest.excerpt, terms, SHORT_EXCERPT_CHARS);
  }
  for (let i = fitted.results.length - 1; i >= 0 && over(); i--) {
    const chat = fitted.results[i]!;
    while (chat.matches.length > 1 && over()) chat.matches.pop();
  }
  while (fitted.results.length > 0 && over()) fitted.results.pop();
  return fitted;
}

export function buildSearchOutput(
  query: string,
  status: "ready" | "indexing",
  chats: RankedChat[],
  /** Each chat's last message time, epoch ms. */
  lastTimes: Map<number, number>,
  /** The terms excerpts centre on (chatExcerptTerms), for shortening them to fit the budget. */
  excerptTerms: readonly string[] = [],
): SearchChatsOutput {
  return fitSearchOutput(
    {
      query,
      index_status: status,
      notice: ARCHIVAL_NOTICE,
      results: chats.map((chat) => {
        const last = lastTimes.get(chat.chatId);
        return {
          chat_id: chat.chatId,
          title: chat.title ? capChars(chat.title, TITLE_MAX_CHARS) : null,
          last_message_at: last === undefined ? null : iso(last),
          matches: chat.matches.map((m) => ({
            message_id: m.messageId,
            role: m.role,
            created_at: iso(m.at),
            excerpt: m.excerpt,
            projection_truncated: m.projectionTruncated,
          })),
        };
      }),
      archival_content: true,
    },
    SEARCH_CHATS_BUDGET_BYTES,
    excerptTerms,
  );
}

/** The card a host renders: the query, index status, and the chats and excerpts consulted. */
export function searchChatsCard(output: SearchChatsOutput): string {
  const body = output.results
    .map(
      (r) =>
        `<chat id="${r.chat_id}" title="${escapeXmlAttr(r.title ?? "")}" last-message-at="${r.last_message_at ?? ""}">` +
        r.matches
          .map(
            (m) =>
              `<match message-id="${m.message_id}" created-at="${m.created_at}">${escapeXmlContent(m.excerpt)}</match>`,
          )
          .join("") +
        "</chat>",
    )
    .join("");
  return `<dyad-search-chats query="${escapeXmlAttr(output.query)}" index-status="${output.index_status}" result-count="${output.results.length}">${body}</dyad-search-chats>`;
}

function requireApp(ctx: ToolContext): number {
  if (ctx.appId === undefined)
    throw new RecallError("Validation", "search_chats needs the current app in its context");
  return ctx.appId;
}

export function createSearchChatsTool(
  db: Db,
  index: ChatIndexState,
): ToolDefinition<typeof SearchChatsInput> {
  return {
    name: "search_chats",
    description:
      "Search this app's earlier chats for decisions, requirements, failures and prior work. Give concise keywords or a " +
      "short phrase. Returns ranked chat/message pointers with short excerpts, never whole messages; expand a hit with " +
      "read_chat({chat_id, around_message_id}). This searches chat history, not source code: use code search for code.",
    inputSchema: SearchChatsInput,
    defaultConsent: "always",
    getConsentPreview: (args) =>
      `Search historical chats for this app for "${args.query}" and provide matching excerpts to the active AI model.`,
    async execute(args, ctx) {
      const appId = requireApp(ctx);
      const excludeChatId = ctx.chatId ?? null;
      const limit = args.limit ?? SEARCH_CHATS_DEFAULT_LIMIT;
      // Wait briefly for a batch already running; never start or perform indexing here.
      await index.waitForIdle(INDEX_WAIT_MS);
      const status = index.isPending(appId, excludeChatId) ? "indexing" : "ready";
      const terms = chatQueryTerms(args.query);
      const scope = { source: ctx.chatSource ?? EMBEDDED_CHAT_SOURCE, appId, excludeChatId };
      const output = readSnapshot(db, () => searchOnce(db, args.query, status, terms, scope, limit, ctx));
      ctx.onCard?.(searchChatsCard(output));
      return JSON.stringify(output);
    },
  };
}

/** One search_chats over one snapshot of the index (store/snapshot.ts). */
function searchOnce(
  db: Db,
  query: string,
  status: "indexing" | "ready",
  terms: string[],
  scope: ChatScope,
  limit: number,
  ctx: ToolContext,
): SearchChatsOutput {
  const candidates = chatCandidates(db, terms, scope);
  // The exact phrase keeps the stopwords the search terms drop ("decided to use x").
  const phrase = phraseMatches(db, chatPhraseTokens(query), candidates);
  const chats = rankChats(candidates, phrase, limit, chatExcerpts(db, terms, candidates));
  const chatIds = chats.map((c) => c.chatId);
  // Embedded: the host's own messages table (indexed by chat); standalone: the index, since
  // the source database is read-only and unindexed.
  const lastTimes =
    ctx.chatSource === undefined
      ? new Map([...lastMessageTimes(db, chatIds)].map(([chat, s]) => [chat, s * 1000]))
      : indexedLastMessageTimes(db, scope, chatIds);
  return buildSearchOutput(query, status, chats, lastTimes, chatExcerptTerms(terms));
}
