import { z } from "zod";
import { RecallError } from "../core/errors.js";
import type { Db } from "../store/open.js";
import { EMBEDDED_CHAT_SOURCE } from "../core/kinds.js";
import { chatCandidates, chatExcerpts, indexedLastMessageTimes, phraseMatches } from "../search/chats.js";
import { chatQueryTerms } from "../search/chat-query.js";
import { rankChats, type RankedChat } from "../search/chat-rank.js";
import { lastMessageTimes } from "../sources/dyad/tables.js";
import { ARCHIVAL_NOTICE, type ToolContext, type ToolDefinition } from "./definition.js";
import { escapeXmlAttr, escapeXmlContent } from "./xml.js";
import type { ChatIndexState } from "./chat-index-state.js";

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
const cap = (s: string, n: number) =>
  Array.from(s).length > n
    ? `${Array.from(s)
        .slice(0, n - 1)
        .join("")}…`
    : s;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Drops chats from the end until the serialized output fits the budget. */
export function fitSearchOutput(
  output: SearchChatsOutput,
  budget = SEARCH_CHATS_BUDGET_BYTES,
): SearchChatsOutput {
  const fitted = { ...output, results: [...output.results] };
  while (fitted.results.length > 0 && bytes(fitted) > budget) {
    fitted.results.pop();
    fitted.results_truncated = true;
  }
  return fitted;
}

export function buildSearchOutput(
  query: string,
  status: "ready" | "indexing",
  chats: RankedChat[],
  /** Each chat's last message time, epoch ms. */
  lastTimes: Map<number, number>,
): SearchChatsOutput {
  return fitSearchOutput({
    query,
    index_status: status,
    notice: ARCHIVAL_NOTICE,
    results: chats.map((chat) => {
      const last = lastTimes.get(chat.chatId);
      return {
        chat_id: chat.chatId,
        title: chat.title ? cap(chat.title, TITLE_MAX_CHARS) : null,
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
  });
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
      const candidates = chatCandidates(db, terms, scope);
      const phrase = phraseMatches(db, terms, candidates);
      const chats = rankChats(candidates, phrase, limit, chatExcerpts(db, terms, candidates));
      const chatIds = chats.map((c) => c.chatId);
      // Embedded: the host's own messages table (indexed by chat); standalone: the index, since
      // the source database is read-only and unindexed.
      const lastTimes =
        ctx.chatSource === undefined
          ? new Map([...lastMessageTimes(db, chatIds)].map(([chat, s]) => [chat, s * 1000]))
          : indexedLastMessageTimes(db, scope, chatIds);
      const output = buildSearchOutput(args.query, status, chats, lastTimes);
      ctx.onCard?.(searchChatsCard(output));
      return JSON.stringify(output);
    },
  };
}
