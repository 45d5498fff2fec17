/**
 * How the pipeline splits its pure work between its two threads. Reading and projecting on the
 * thread took longer than writing (100k demo messages: the thread read for 4.4 s and projected
 * for 4.5 s while the writer wrote for 2.2 s and waited 6.7 s), so the pipeline gained nothing on
 * two cores. The thread now leaves the tail of each batch to the writer, a share that follows
 * which side waits: it grows while the writer waits for ticks and shrinks while the thread waits
 * for room in the queue, so both cores stay busy whichever stage is slower on a given corpus.
 *
 * Up to 1 the share is of a batch's records, which the writer projects; past 1, the writer
 * projects them all and compresses that much more of the batch's raw chunks as well. On the
 * demo corpus reading alone keeps the thread busy: with records only, capped at 0.8, the writer
 * still waited 3.0–4.7 s of a 200k-message backfill's 23–29 s (deeper queue, pipeline.ts).
 * It starts at half the records, near where the Zipf corpus settles (0.55; the demo's 1.1–1.2):
 * from none, the writer waited 0.55–0.96 s while it climbed (seconds 2–4 of a 200k demo
 * backfill), from half 0.44–0.46 s.
 */
export const SHARE = { start: 0.5, step: 0.05, max: 2 } as const;

export class PipelineShare {
  #share: number;
  #starved: number;
  readonly #fixed: boolean;

  /**
   * `starved`: the writer's count of waits for a tick so far (pipeline-protocol's SLOT.starved).
   * `fixed`: a share that does not follow the waits (tests).
   */
  constructor(starved = 0, fixed: number | null = null) {
    this.#starved = starved;
    this.#share = fixed ?? SHARE.start;
    this.#fixed = fixed !== null;
  }

  /** The writer's share of the next batch's work, in [0, SHARE.max]. */
  get value(): number {
    return this.#share;
  }

  /** After a tick: the writer's wait count now, and whether the thread waited for room. */
  observe(starved: number, threadWaited: boolean): void {
    const writerWaited = starved > this.#starved;
    this.#starved = starved;
    if (this.#fixed) return;
    if (writerWaited && !threadWaited) this.#share = Math.min(SHARE.max, this.#share + SHARE.step);
    else if (threadWaited && !writerWaited) this.#share = Math.max(0, this.#share - SHARE.step);
  }

  /** Where a batch of `count` records splits: the thread projects those before the index. */
  cut(count: number): number {
    return count - Math.round(count * Math.min(1, this.#share));
  }

  /** Where a batch's `count` raw chunks split: the thread compresses those before the index. */
  compressCut(count: number): number {
    return count - Math.round(count * Math.max(0, this.#share - 1));
  }
}
