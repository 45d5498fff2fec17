import { describe, expect, it } from "vitest";
import type { Budget } from "../types.js";
import { PAUSE_PER_LOOK, ScanCadence, SCAN_EVERY_TICKS, SCAN_INTERVAL_MS } from "./cadence.js";

const budget = (thorough: boolean, now = 0): Budget => ({
  maxRecords: 1000,
  maxBytes: 1 << 20,
  maxEntries: 32,
  maxSessionRows: 32,
  maxFiles: 2,
  now,
  expired: () => false,
  thorough,
});

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function ticksUntilDue(cadence: ScanCadence, b: Budget, max: number): number | null {
  for (let i = 1; i <= max; i++) if (cadence.due(b)) return i;
  return null;
}

describe("ScanCadence", () => {
  it("in a backfill, looks again after SCAN_EVERY_TICKS ticks once a pause in proportion to the last look has passed", () => {
    const cadence = new ScanCadence();
    expect(ticksUntilDue(cadence, budget(true), SCAN_EVERY_TICKS)).toBe(SCAN_EVERY_TICKS);
    cadence.spent(1); // a look that took 1 ms: the next waits PAUSE_PER_LOOK ms
    cadence.looked(0);
    expect(ticksUntilDue(cadence, budget(true), 10 * SCAN_EVERY_TICKS)).toBeNull();
    sleep(PAUSE_PER_LOOK + 20);
    expect(cadence.due(budget(true))).toBe(true);
  });

  it("outside a backfill, looks every SCAN_INTERVAL_MS of the clock, whatever a look cost", () => {
    const cadence = new ScanCadence();
    expect(cadence.due(budget(false, 0))).toBe(true);
    cadence.spent(50);
    cadence.looked(0);
    expect(cadence.due(budget(false, SCAN_INTERVAL_MS - 1))).toBe(false);
    expect(cadence.due(budget(false, SCAN_INTERVAL_MS))).toBe(true);
  });
});
