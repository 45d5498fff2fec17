import { RecallError } from "../core/errors.js";

/**
 * A page position in a retained conversation: (time, ordinal), stable across reindex. `seen`,
 * on the cursors get_conversation returns, is the highest ordinal the conversation had when
 * its paging began: records appended after it (ordinal > seen) are read after the others, in
 * the order they were appended, so one written later with an earlier time is not passed over.
 */
export interface PagePosition {
  at: number;
  ordinal: number;
  seen?: number;
}

/** Opaque to callers: base64url of "at.ordinal" or "at.ordinal.seen". */
export function encodeCursor(position: PagePosition): string {
  const seen = position.seen === undefined ? "" : `.${position.seen}`;
  return Buffer.from(`${position.at}.${position.ordinal}${seen}`).toString("base64url");
}

/** `field` names the input the cursor came in (get_conversation's `after`, the dashboard's `before`). */
export function decodeCursor(cursor: string, field = "after"): PagePosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^(-?\d+)\.(\d+)(?:\.(-?\d+))?$/.exec(text);
  if (!match) throw new RecallError("Validation", `${field}: not a cursor returned by get_conversation`);
  const position: PagePosition = { at: Number(match[1]), ordinal: Number(match[2]) };
  if (match[3] !== undefined) position.seen = Number(match[3]);
  // base64url decoding skips what it cannot read: only the exact text recall returned is a cursor.
  if (encodeCursor(position) !== cursor)
    throw new RecallError("Validation", `${field}: not a cursor returned by get_conversation`);
  return position;
}
