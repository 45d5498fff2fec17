import { performance } from "node:perf_hooks";

/** A measured figure and its unit: every number the benchmark reports carries one. */
export interface Figure {
  value: number | null;
  unit: string;
  /** Why the value is missing, or how it was obtained when that matters. */
  note?: string;
}

export const fig = (value: number | null, unit: string, note?: string): Figure =>
  note === undefined ? { value, unit } : { value, unit, note };

export const unavailable = (unit: string, note: string): Figure => ({ value: null, unit, note });

export interface Distribution {
  n: Figure;
  p50: Figure;
  p95: Figure;
  p99: Figure;
  max: Figure;
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function distribution(samples: readonly number[], unit = "ms"): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);
  return {
    n: fig(samples.length, "queries"),
    p50: fig(round(percentile(sorted, 50)), unit),
    p95: fig(round(percentile(sorted, 95)), unit),
    p99: fig(round(percentile(sorted, 99)), unit),
    max: fig(round(sorted.at(-1) ?? NaN), unit),
  };
}

export function median(samples: readonly number[]): number {
  return percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );
}

/** Milliseconds a synchronous call takes. */
export function timeSync<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Top-k overlap of two rankings (share of the reference's first k found in the candidate's first k). */
export function overlapAt<T>(candidate: readonly T[], reference: readonly T[], k = 10): number | null {
  const ref = reference.slice(0, k);
  if (ref.length === 0) return candidate.length === 0 ? 1 : null;
  const set = new Set(ref);
  return candidate.slice(0, k).filter((x) => set.has(x)).length / ref.length;
}

export const mean = (xs: readonly number[]): number | null =>
  xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;

export const round = (x: number | null, digits = 3): number | null =>
  x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits;

/** A deterministic generator for sampling queries (the benchmark never reads Math.random). */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  next(): number {
    // xorshift32
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 2 ** 32;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}
