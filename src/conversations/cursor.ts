import { RecallError } from "../core/errors.js";

/** A page position in a retained conversation: (time, ordinal), stable across reindex. */
export interface PagePosition {
  at: number;
  ordinal: number;
}

/** Opaque to callers: base64url of "at.ordinal". */
export function encodeCursor(position: PagePosition): string {
  return Buffer.from(`${position.at}.${position.ordinal}`).toString("base64url");
}

/** `field` names the input the cursor came in (get_conversation's `after`, the dashboard's `before`). */
export function decodeCursor(cursor: string, field = "after"): PagePosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^(-?\d+)\.(\d+)$/.exec(text);
  if (!match) throw new RecallError("Validation", `${field}: not a cursor returned by get_conversation`);
  return { at: Number(match[1]), ordinal: Number(match[2]) };
}
