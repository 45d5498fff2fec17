import type { Budget } from "../types.js";

/** Changed session rows are looked for at most this often once caught up (no index on time_updated). */
export const SCAN_INTERVAL_MS = 1_000;
/** In a backfill (ticks back to back), once caught up: every this many ticks. */
export const SCAN_EVERY_TICKS = 16;

/**
 * When a caught-up reader looks again for changes nothing tells it about (database rows
 * without a time index, storage/ files by mtime): every SCAN_EVERY_TICKS ticks in a backfill,
 * where ticks run back to back, else every SCAN_INTERVAL_MS.
 */
export class ScanCadence {
  private lookedAt = -Infinity;
  private ticks = 0;

  /** Counts one tick; true when a look is due. */
  due(budget: Budget): boolean {
    this.ticks += 1;
    return budget.thorough ? this.ticks >= SCAN_EVERY_TICKS : budget.now - this.lookedAt >= SCAN_INTERVAL_MS;
  }

  looked(now: number): void {
    this.lookedAt = now;
    this.ticks = 0;
  }
}
