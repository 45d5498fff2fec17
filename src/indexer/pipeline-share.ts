/**
 * How the pipeline splits projection between its two threads. Reading and projecting on the
 * thread took longer than writing (100k demo messages: the thread read for 4.4 s and projected
 * for 4.5 s while the writer wrote for 2.2 s and waited 6.7 s), so the pipeline gained nothing on
 * two cores. The thread now leaves the tail of each batch unprojected, a share that follows which
 * side waits: it grows while the writer waits for ticks and shrinks while the thread waits for
 * room in the queue, so both cores stay busy whichever stage is slower on a given corpus. At 1M
 * demo messages it settles near its bound (reading alone keeps the thread busy); a bound of 1
 * measured the same.
 */
export const SHARE = { step: 0.05, max: 0.8 } as const;

export class ProjectionShare {
  #share: number;
  #starved: number;
  readonly #fixed: boolean;

  /**
   * `starved`: the writer's count of waits for a tick so far (pipeline-protocol's SLOT.starved).
   * `fixed`: a share that does not follow the waits (tests).
   */
  constructor(starved = 0, fixed: number | null = null) {
    this.#starved = starved;
    this.#share = fixed ?? 0;
    this.#fixed = fixed !== null;
  }

  /** The share of the next batch's records the writer projects, in [0, SHARE.max]. */
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
    return count - Math.round(count * this.#share);
  }
}
