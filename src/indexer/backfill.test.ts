import { describe, expect, it } from "vitest";
import { tempHistoryStores } from "../../test/helpers/temp-store.js";
import { systemClock } from "../core/clock.js";
import { PROJECTION_VERSION } from "../projection/index.js";
import { emptyBatch, type Source, type SourceBatch } from "../sources/types.js";
import { backfill } from "./backfill.js";

/** A source that reports work waiting for its first `busyPolls` polls, then idle. */
function scriptedSource(name: string, busyPolls: number) {
  const log = { polls: 0, ticksSeen: [] as number[] };
  let sweeps = 0;
  const source: Source = {
    name,
    agent: name,
    nextBatch(): SourceBatch {
      log.polls += 1;
      const busy = log.polls <= busyPolls;
      if (!busy) sweeps += 1;
      const batch = emptyBatch();
      batch.idle = !busy;
      batch.progress = {
        filesKnown: 1,
        backlogFiles: busy ? 1 : 0,
        backlogBytes: 0,
        doneBytes: 0,
        discovered: true,
        cleanSweeps: sweeps,
      };
      return batch;
    },
  };
  return { source, log };
}

describe("backfill scheduling", () => {
  const openStore = tempHistoryStores("recall-backfill-");

  it("polls a source that finished its part rarely while another still works, and ends with both idle", async () => {
    const store = await openStore();
    const busy = scriptedSource("busy", 400);
    const quiet = scriptedSource("quiet", 0);
    let lastTick: string[] = [];
    const result = backfill(store.db, [busy.source, quiet.source], {
      projectionVersion: PROJECTION_VERSION,
      clock: systemClock,
      onTick: (ticks) => (lastTick = ticks.map((tick) => tick.source)),
    });
    expect(busy.log.polls).toBeGreaterThan(400);
    expect(result.ticks).toBe(busy.log.polls);
    // Without the quiet period the finished source is polled on every tick (400+ times).
    expect(quiet.log.polls).toBeLessThan(100);
    // The tick that ended the backfill saw every source idle.
    expect(lastTick).toEqual(["busy", "quiet"]);
  });
});
