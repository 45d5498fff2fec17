import { performance } from "node:perf_hooks";
import type { Budget } from "../types.js";

/** Changed session rows are looked for at most this often once caught up (no index on time_updated). */
export const SCAN_INTERVAL_MS = 1_000;
/** In a backfill (ticks back to back), once caught up: every this many ticks at the most… */
export const SCAN_EVERY_TICKS = 16;
/**
 * …and after a pause this many times as long as the last look took. A look is O(sessions): at
 * 1M records, looking every 16 ticks cost 7 s of a 100 s backfill (a full scan of the session
 * table each time, and two stat calls per storage/ session per sweep).
 */
export const PAUSE_PER_LOOK = 100;

/**
 * When a caught-up reader looks again for changes nothing tells it about (database rows
 * without a time index, storage/ files by mtime): in a backfill, where ticks run back to back,
 * after SCAN_EVERY_TICKS ticks and a pause proportionate to the look's cost; else every
 * SCAN_INTERVAL_MS.
 */
export class ScanCadence {
  private lookedAt = -Infinity;
  private ticks = 0;
  private lookMs = 0;
  private endedAt = -Infinity;
  private lastLookMs = 0;

  /** Counts one tick; true when a look is due. */
  due(budget: Budget): boolean {
    this.ticks += 1;
    if (!budget.thorough) return budget.now - this.lookedAt >= SCAN_INTERVAL_MS;
    return (
      this.ticks >= SCAN_EVERY_TICKS && performance.now() - this.endedAt >= PAUSE_PER_LOOK * this.lastLookMs
    );
  }

  /** Real time a look (or one tick's share of a sweep) took. */
  spent(ms: number): void {
    this.lookMs += ms;
  }

  /** A look (or a whole sweep) ended. */
  looked(now: number): void {
    this.lookedAt = now;
    this.ticks = 0;
    this.endedAt = performance.now();
    this.lastLookMs = this.lookMs;
    this.lookMs = 0;
  }
}
