/**
 * Epoch-millisecond instants as recall prints them. A stored value comes from someone else's file
 * or database, so it may be no time a Date can hold: printing it must not throw.
 */

/** 9999-12-31T23:59:59.999Z: the last instant with a four-digit year. No transcript is later. */
export const LATEST_INSTANT_MS = 253_402_300_799_999;

/** ISO 8601 of an epoch-ms value, or null when it is absent or no time a Date can hold. */
export function isoInstant(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
