import type { Rng } from "./rng.js";

/** Guide-table buckets: enough that a draw's binary search spans a handful of ranks. */
const GUIDE_BUCKETS = 1 << 16;

/**
 * Draws ranks 0..size-1 with P(rank r) ∝ 1 / (r + 1)^exponent. A plain binary search over the
 * cumulative distribution costs ~18 steps a draw, and the Zipf corpus draws tens of millions of
 * words at 1M messages; a guide table (the first rank of each 1/65536 slice of probability) cuts
 * the search to the few ranks inside one slice.
 */
export class ZipfSampler {
  private readonly cdf: Float64Array;
  private readonly guide: Int32Array;

  constructor(
    readonly size: number,
    readonly exponent: number,
  ) {
    if (size < 1) throw new Error("a Zipf sampler needs at least one rank");
    const cdf = new Float64Array(size);
    let acc = 0;
    for (let r = 0; r < size; r++) {
      acc += 1 / Math.pow(r + 1, exponent);
      cdf[r] = acc;
    }
    for (let r = 0; r < size; r++) cdf[r] = cdf[r]! / acc;
    cdf[size - 1] = 1;
    const guide = new Int32Array(GUIDE_BUCKETS + 1);
    let r = 0;
    for (let g = 0; g <= GUIDE_BUCKETS; g++) {
      const at = g / GUIDE_BUCKETS;
      while (r < size - 1 && cdf[r]! < at) r++;
      guide[g] = r;
    }
    this.cdf = cdf;
    this.guide = guide;
  }

  /** One rank: the first whose cumulative probability reaches a uniform draw. */
  sample(rng: Rng): number {
    const u = rng.next();
    const g = Math.floor(u * GUIDE_BUCKETS);
    let lo = this.guide[g]!;
    let hi = this.guide[g + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
