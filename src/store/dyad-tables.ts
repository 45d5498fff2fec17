import type { Db } from "./open.js";
import { statement } from "./statements.js";

/**
 * SQL over a Dyad-shaped database (apps, chats, messages; column names as in Dyad's
 * schema). Only the columns recall needs are ever selected: never ai_messages_json.
 * Dyad stores timestamps in Unix seconds; rows here carry them as they are.
 */

export interface DyadMessageRow {
  id: number;
  chatId: number;
  appId: number;
  role: "user" | "assistant";
  content: string;
  isCompactionSummary: number | null;
  createdAt: number;
  title: string | null;
}

export interface DyadChatRow {
  id: number;
  appId: number;
  title: string | null;
  createdAt: number;
  totalMessages: number;
}

export interface DyadPageRow {
  id: number;
  role: "user" | "assistant";
  content: string;
  isCompactionSummary: number | null;
  createdAt: number;
  ordinal: number;
}

export const MESSAGE_COLUMNS = `m.id, m.chat_id AS chatId, c.app_id AS appId, m.role, m.content,
  m.is_compaction_summary AS isCompactionSummary, m.created_at AS createdAt, c.title`;

/** Message ids with their content size, so a batch can be bounded in bytes before loading bodies. */
export function sizesOf(db: Db, ids: readonly number[]): { id: number; bytes: number }[] {
  if (ids.length === 0) return [];
  return statement(
    db,
    `SELECT m.id, length(CAST(m.content AS BLOB)) AS bytes FROM messages m WHERE m.id IN (${ids.map(() => "?").join(",")})`,
  ).all(...ids) as { id: number; bytes: number }[];
}

export function messagesByIds(db: Db, ids: readonly number[]): DyadMessageRow[] {
  if (ids.length === 0) return [];
  return statement(
    db,
    `SELECT ${MESSAGE_COLUMNS} FROM messages m JOIN chats c ON c.id = m.chat_id
     WHERE m.id IN (${ids.map(() => "?").join(",")}) ORDER BY m.id`,
  ).all(...ids) as DyadMessageRow[];
}

/** The chat, only when it belongs to the app: scope is part of the lookup, not a check after it. */
export function chatInApp(
  db: Db,
  chatId: number,
  appId: number,
  beforeMessageId: number | null,
): DyadChatRow | undefined {
  return statement(
    db,
    `SELECT c.id, c.app_id AS appId, c.title, c.created_at AS createdAt,
       (SELECT count(*) FROM messages m WHERE m.chat_id = c.id AND (? IS NULL OR m.id < ?)) AS totalMessages
     FROM chats c WHERE c.id = ? AND c.app_id = ?`,
  ).get(beforeMessageId, beforeMessageId, chatId, appId) as DyadChatRow | undefined;
}

/** (created_at, id) order with 0-based ordinals; reads only the (chat_id, created_at, id) index. */
const ORDERED = `
  WITH ordered AS (
    SELECT m.id, ROW_NUMBER() OVER (ORDER BY m.created_at, m.id) - 1 AS ordinal
    FROM messages m JOIN chats c ON c.id = m.chat_id
    WHERE m.chat_id = ? AND c.app_id = ? AND (? IS NULL OR m.id < ?)
  )`;

/** A page of a same-app chat by ordinal range; only the chosen rows' content is loaded. */
export function chatPage(
  db: Db,
  scope: { chatId: number; appId: number; beforeMessageId: number | null },
  fromOrdinal: number,
  count: number,
): DyadPageRow[] {
  return statement(
    db,
    `${ORDERED}
     SELECT o.id, o.ordinal, m.role, m.created_at AS createdAt, m.is_compaction_summary AS isCompactionSummary, m.content
     FROM ordered o JOIN messages m ON m.id = o.id
     WHERE o.ordinal >= ? AND o.ordinal < ?
     ORDER BY o.ordinal`,
  ).all(
    scope.chatId,
    scope.appId,
    scope.beforeMessageId,
    scope.beforeMessageId,
    fromOrdinal,
    fromOrdinal + count,
  ) as DyadPageRow[];
}

/** The ordinal of a message inside its same-app chat, or undefined when it is not there. */
export function ordinalOf(
  db: Db,
  scope: { chatId: number; appId: number; beforeMessageId: number | null },
  messageId: number,
): number | undefined {
  const row = statement(db, `${ORDERED} SELECT ordinal FROM ordered WHERE id = ?`).get(
    scope.chatId,
    scope.appId,
    scope.beforeMessageId,
    scope.beforeMessageId,
    messageId,
  ) as { ordinal: number } | undefined;
  return row?.ordinal;
}

/** Latest message time per chat, in one grouped query for all result chats. */
export function lastMessageTimes(db: Db, chatIds: readonly number[]): Map<number, number> {
  if (chatIds.length === 0) return new Map();
  const rows = statement(
    db,
    `SELECT chat_id AS chatId, max(created_at) AS at FROM messages
     WHERE chat_id IN (${chatIds.map(() => "?").join(",")}) GROUP BY chat_id`,
  ).all(...chatIds) as { chatId: number; at: number }[];
  return new Map(rows.map((r) => [r.chatId, r.at]));
}

/** Whether the database holds this app. */
export function hasApp(db: Db, appId: number): boolean {
  return statement(db, "SELECT 1 FROM apps WHERE id = ?").get(appId) !== undefined;
}
