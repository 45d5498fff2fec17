/**
 * The public ids sources give their conversations and records, built here so every source
 * spells them alike (DESIGN.md "Data model"): a transcript conversation `<agent>:<session>` and
 * hit id `transcript:<agent>:<session>:<key>`; an app chat `chat:<source>:<chatId>` and hit id
 * `chat:<source>:<chatId>:<messageId>`. The agent bridge's ids are its own (bridge/records.ts).
 */
export const conversationId = (agent: string, session: string) => `${agent}:${session}`;

export const transcriptHitId = (agent: string, session: string, key: string) =>
  `transcript:${agent}:${session}:${key}`;

/** Defined in core/ because the audit log names chat conversations too. */
export { chatConversationId } from "../core/kinds.js";

export const chatHitId = (source: string, chatId: number, messageId: number) =>
  `chat:${source}:${chatId}:${messageId}`;
