import type { z } from "zod";
import { RecallError } from "../core/errors.js";
import { decodeCursor, encodeCursor, type PagePosition } from "../conversations/cursor.js";
import { conversationById, conversationOfHit } from "../conversations/read.js";
import { positionOfHit, positionsBefore } from "../conversations/window.js";
import type { Db } from "../store/open.js";
import { ARCHIVAL_NOTICE } from "./definition.js";
import {
  GET_CONVERSATION_BUDGET_BYTES,
  readConversationPage,
  recordBytes,
  type GetConversationInput,
  type GetConversationOutput,
} from "./get-conversation.js";

/**
 * The dashboard's two-way paging over get_conversation's forward pages: a page before a
 * position (`before`), or a window around a hit (`around`). Every page is built by
 * get_conversation's own reader (same records, bounds and budget); this only chooses where it
 * starts. `prev` pages toward older records, `next` (as in get_conversation) toward newer.
 */
export interface ConversationWindow extends GetConversationOutput {
  prev: string | null;
  /** The record the window was opened around, when it is retained. */
  focus?: string;
}

type Args = z.output<typeof GetConversationInput>;

/** Room for what a window adds to a page: `prev` (a cursor) and `focus` (a hit id). */
const WINDOW_FIELDS_BYTES = 512;

function resolveConversation(db: Db, id: string): string {
  const conversation = conversationById(db, id) ? id : conversationOfHit(db, id);
  if (!conversation || !conversationById(db, conversation))
    throw new RecallError("NotFound", "no such conversation (the id is neither a conversation nor a hit id)");
  return conversation;
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
  limit: number,
  budgetBytes = GET_CONVERSATION_BUDGET_BYTES,
) {
  const older = positionsBefore(db, conversation, position, limit + 1);
  let count = Math.min(limit, older.length);
  while (count > 0) {
    const start = older[count]; // the record just before the page, if any
    const page = readConversationPage(
      db,
      { id: conversation, after: start ? encodeCursor(start) : undefined, limit: count },
      budgetBytes,
    );
    if (page.records.length === count) {
      return { page, prev: older.length > count ? encodeCursor(older[count - 1]!) : null };
    }
    count = page.records.length;
  }
  return { page: null, prev: null };
}

export function readWindowBefore(db: Db, args: Args & { before: string }): ConversationWindow {
  const conversation = resolveConversation(db, args.id);
  const { page, prev } = pageEndingBefore(db, conversation, decodeCursor(args.before, "before"), args.limit);
  const records = page?.records ?? [];
  return { records, next: null, notice: ARCHIVAL_NOTICE, archival_content: true, prev };
}

export function readWindowAround(db: Db, args: Args & { around: string }): ConversationWindow {
  const conversation = resolveConversation(db, args.id);
  const position = positionOfHit(db, conversation, args.around);
  if (!position) throw new RecallError("NotFound", "around: the hit is not in this conversation");
  // The two pages share one page's budget: the older half at most half of it, the newer (which
  // opens at the hit) the rest.
  const olderLimit = Math.floor(args.limit / 2);
  const older =
    olderLimit > 0
      ? pageEndingBefore(db, conversation, position, olderLimit, GET_CONVERSATION_BUDGET_BYTES / 2)
      : null;
  const olderBytes = (older?.page?.records ?? []).reduce((n, r) => n + recordBytes(r), 0);
  const justBefore = positionsBefore(db, conversation, position, 1)[0];
  const newer = readConversationPage(
    db,
    {
      id: conversation,
      after: justBefore ? encodeCursor(justBefore) : undefined,
      limit: args.limit - (older?.page?.records.length ?? 0),
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
