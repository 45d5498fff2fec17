import type { CanarySource } from "./canaries.js";
import type { SourceCounts } from "./manifest.js";
import type { NeedlePlanner } from "./needles.js";
import type { Progress } from "./plan.js";
import type { Rng } from "./rng.js";
import type { TextModel } from "./text.js";

/** What every source generator receives. */
export interface SourceContext {
  /** This source's own stream (forked from the seed). */
  rng: Rng;
  text: TextModel;
  canaries: CanarySource;
  needles: NeedlePlanner;
  progress: Progress;
  baseTime: number;
  /** Absolute project paths this source may use (index = SessionPlan.project). */
  projects: readonly string[];
  /** Target size of this source. */
  spec: { messages: number; sessions: number; projects: number };
}

export interface SourceResult {
  counts: SourceCounts;
  projectsUsed: string[];
}

/**
 * Tool-payload sizes: mostly small, sometimes tens of KB, rarely hundreds of KB. The first `force`
 * calls return a large size so even tiny corpora carry some big payloads.
 */
export class PayloadSizer {
  private calls = 0;
  constructor(
    private readonly rng: Rng,
    private readonly force = 2,
  ) {}
  next(): number {
    // Calls 1, 4, 7, … (up to `force` of them) are large.
    if (this.calls++ % 3 === 0 && this.calls <= 3 * this.force) return this.rng.range(40_000, 160_000);
    const x = this.rng.next();
    if (x < 0.003) return this.rng.range(20_000, 300_000);
    if (x < 0.03) return this.rng.range(3_000, 20_000);
    return this.rng.range(80, 1_500);
  }
}

/** Counts of the optional shapes a source must emit at least once; `want(name, p)` forces pending ones. */
export class Coverage {
  private readonly pending: Set<string>;
  constructor(names: readonly string[]) {
    this.pending = new Set(names);
  }
  /** True with probability `p`, or always while `name` has not appeared yet. Marks it as seen when true. */
  want(rng: Rng, name: string, p: number): boolean {
    const hit = this.pending.has(name) || rng.chance(p);
    if (hit) this.pending.delete(name);
    return hit;
  }
  has(name: string): boolean {
    return this.pending.has(name);
  }
  done(name: string): void {
    this.pending.delete(name);
  }
}
