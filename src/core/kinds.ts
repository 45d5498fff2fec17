import { z } from "zod";

/** Document kinds of the history spec, plus `chat` for app chat stores. */
export const DocumentKind = z.enum([
  "message",
  "run",
  "decision",
  "transcript",
  "approval",
  "progress",
  "report",
  "chat",
]);
export type DocumentKind = z.infer<typeof DocumentKind>;

/**
 * Who said a record. `context` is injected text (system reminders, environment and
 * AGENTS.md blocks, attachments): retained for reads, never indexed as user speech.
 */
export const Role = z.enum(["user", "assistant", "system", "context", "tool"]);
export type Role = z.infer<typeof Role>;

/** documents.source of the chats a host's own database indexes in embedded mode. */
export const EMBEDDED_CHAT_SOURCE = "chat";

/** documents.source of the agent bridge's records (messages, decisions, runs). */
export const BRIDGE_SOURCE = "bridge";

/** The conversation id of a chat in an indexed Dyad-shaped database (`source` names the database). */
export const chatConversationId = (source: string, chatId: number) => `chat:${source}:${chatId}`;
