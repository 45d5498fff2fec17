import { RecallError } from "../core/errors.js";
import { decodeCursor, encodeCursor, type PagePosition } from "../conversations/cursor.js";
import {
  conversationById,
  conversationOfHit,
  highestOrdinal,
  recordsAfter,
  type RecordFilter,
} from "../conversations/read.js";
import { positionOfHit, positionsBefore } from "../conversations/window.js";
import type { Db } from "../store/open.js";
import { ARCHIVAL_NOTICE } from "./definition.js";

/**
 * get_conversation's reads (tools/get-conversation.ts is the tool: schema, description): a page
 * forward from a conversation's start or an `after` cursor, a page before a position (`before`),
 * or a window around a hit (`around`). Every page is built by the one forward reader (same
 * records, bounds and budget); the windows only choose where it starts. `prev` pages toward
 * older records (pass it as `before`), `next` toward newer (pass it as `after`). Injected context
 * records are left out unless `include_context` is true, in SQL (conversations/read.ts).
 */

/** Per-record text bound and whole-response budget. */
export const RECORD_TEXT_MAX_BYTES = 4 * 1024;
export const GET_CONVERSATION_BUDGET_BYTES = 32 * 1024;

export interface ConversationRecord {
  id: string;
  role: string;
  at: number;
  kind: string;
  text: string;
  truncated: boolean;
}

export interface GetConversationOutput {
  records: ConversationRecord[];
  next: string | null;
  notice: string;
  archival_content: true;
}

/** A page opened around a hit or before a cursor: get_conversation's output plus `prev`. */
export interface ConversationWindow extends GetConversationOutput {
  prev: string | null;
  /** The hit the window was opened around. */
  focus?: string;
}

/** What a page read takes: get_conversation's input (tools/get-conversation.ts) after parsing. */
export interface PageArgs {
  id: string;
  after?: string;
  limit: number;
  /** Also injected context records; false (the tool's default) when absent. */
  include_context?: boolean;
}

const filterOf = (args: PageArgs): RecordFilter => ({ context: args.include_context === true });

/** Room for what a window adds to a page: `prev` (a cursor) and `focus` (a hit id). */
const WINDOW_FIELDS_BYTES = 512;

/** Cuts to a UTF-8 byte bound on a code-point boundary. */
export function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= maxBytes) return { text, cut: false };
  let out = "";
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes - 3) break;
    out += ch;
    bytes += size;
  }
  return { text: `${out}…`, cut: true };
}

/** Bytes a record adds to a page's serialized output (its JSON and a separator). */
export function recordBytes(record: ConversationRecord): number {
  return Buffer.byteLength(JSON.stringify(record)) + 1;
}

function resolveConversation(db: Db, id: string): string {
  const conversation = conversationById(db, id) ? id : conversationOfHit(db, id);
  if (!conversation || !conversationById(db, conversation))
    throw new RecallError("NotFound", "no such conversation (the id is neither a conversation nor a hit id)");
  return conversation;
}

/**
 * One page of records after `args.after`, within `budgetBytes` of serialized output (the tool's
 * 32 KiB; less when a window shares the budget with another page) but never empty.
 */
export function readConversationPage(
  db: Db,
  args: PageArgs,
  budgetBytes = GET_CONVERSATION_BUDGET_BYTES,
): GetConversationOutput {
  const id = resolveConversation(db, args.id);
  const after = args.after === undefined ? null : decodeCursor(args.after);
  // Paging begins here when the cursor names no high-water mark (a first page, an older cursor).
  const seen = after?.seen ?? highestOrdinal(db, id);
  const rows = recordsAfter(db, id, after, args.limit + 1, seen, filterOf(args));
  const output: GetConversationOutput = {
    records: [],
    next: null,
    notice: ARCHIVAL_NOTICE,
    archival_content: true,
  };
  let size = Buffer.byteLength(JSON.stringify(output)) + 64;
  let last = after;
  for (const row of rows.slice(0, args.limit)) {
    const { text, cut } = cutUtf8(row.text, RECORD_TEXT_MAX_BYTES);
    const record: ConversationRecord = {
      id: row.hitId ?? `${row.conversation}#${row.ordinal}`,
      role: row.role,
      at: row.at,
      kind: row.kind,
      text,
      truncated: cut || row.truncated === 1,
    };
    const bytes = recordBytes(record);
    if (output.records.length > 0 && size + bytes > budgetBytes) break;
    output.records.push(record);
    size += bytes;
    last = { at: row.at, ordinal: row.ordinal };
  }
  const more = rows.length > output.records.length;
  output.next = more && last ? encodeCursor({ at: last.at, ordinal: last.ordinal, seen }) : null;
  return output;
}

/**
 * The newest records before `position` that fit one page: ends right before `position`. A page
 * cut short by the byte budget is retried starting later, so no record is ever skipped between
 * this page and the one the caller already shows.
 */
function pageEndingBefore(
  db: Db,
  conversation: string,
  position: PagePosition,
  args: PageArgs,
  limit: number,
  budgetBytes = GET_CONVERSATION_BUDGET_BYTES,
) {
  const filter = filterOf(args);
  const older = positionsBefore(db, conversation, position, limit + 1, filter);
  let count = Math.min(limit, older.length);
  while (count > 0) {
    const start = older[count]; // the record just before the page, if any
    const page = readConversationPage(
      db,
      {
        id: conversation,
        after: start ? encodeCursor(start) : undefined,
        limit: count,
        include_context: filter.context,
      },
      budgetBytes,
    );
    if (page.records.length === count) {
      return { page, prev: older.length > count ? encodeCursor(older[count - 1]!) : null };
    }
    count = page.records.length;
  }
  return { page: null, prev: null };
}

/** The page that ends right before `before` (a `prev` cursor); `next` is null (the caller holds what follows). */
export function readWindowBefore(db: Db, args: PageArgs & { before: string }): ConversationWindow {
  const conversation = resolveConversation(db, args.id);
  const { page, prev } = pageEndingBefore(
    db,
    conversation,
    decodeCursor(args.before, "before"),
    args,
    args.limit,
  );
  const records = page?.records ?? [];
  return { records, next: null, notice: ARCHIVAL_NOTICE, archival_content: true, prev };
}

/**
 * The records around a hit of the conversation: up to half of `limit` before it, then the hit's
 * record and those after it, within one page's budget. A hit of another conversation, an unknown
 * one, or (without include_context) one whose record is injected context is NotFound.
 */
export function readWindowAround(db: Db, args: PageArgs & { around: string }): ConversationWindow {
  const conversation = resolveConversation(db, args.id);
  const filter = filterOf(args);
  const position = positionOfHit(db, conversation, args.around, filter);
  if (!position) throw new RecallError("NotFound", "around: the hit is not in this conversation");
  // The two pages share one page's budget: the older half at most half of it, the newer (which
  // opens at the hit) the rest.
  const olderLimit = Math.floor(args.limit / 2);
  const older =
    olderLimit > 0
      ? pageEndingBefore(db, conversation, position, args, olderLimit, GET_CONVERSATION_BUDGET_BYTES / 2)
      : null;
  const olderBytes = (older?.page?.records ?? []).reduce((n, r) => n + recordBytes(r), 0);
  const justBefore = positionsBefore(db, conversation, position, 1, filter)[0];
  const newer = readConversationPage(
    db,
    {
      id: conversation,
      after: justBefore ? encodeCursor(justBefore) : undefined,
      limit: args.limit - (older?.page?.records.length ?? 0),
      include_context: filter.context,
    },
    GET_CONVERSATION_BUDGET_BYTES - olderBytes - WINDOW_FIELDS_BYTES,
  );
  const prev = older?.page ? older.prev : justBefore ? encodeCursor(position) : null;
  return {
    ...newer,
    records: [...(older?.page?.records ?? []), ...newer.records],
    prev,
    focus: args.around,
  };
}

/**
 * get_conversation's one read: around a hit, before a cursor, or forward (from the start or
 * after a cursor). The tool's schema allows at most one of `around`, `before`, `after`.
 */
export function readConversation(
  db: Db,
  args: PageArgs & { before?: string; around?: string },
): GetConversationOutput | ConversationWindow {
  if (args.around !== undefined) return readWindowAround(db, { ...args, around: args.around });
  if (args.before !== undefined) return readWindowBefore(db, { ...args, before: args.before });
  return readConversationPage(db, args);
}
