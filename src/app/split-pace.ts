import { performance } from "node:perf_hooks";
import type { Pace } from "../store/history-split.js";

/** The most a step's commit may shrink its chunks' budget by (a few slow commits on a busy machine). */
const MAX_OVERHEAD = 8;
/** A chunk takes at most this share of what is left of the budget: one dear chunk overruns less. */
const CHUNKS = 2;
/** Rows in the first chunk of a kind not measured yet: small, so a heavy kind cannot overrun. */
const FIRST_CHUNK = 4;

/**
 * The split's pace (store/history-split.ts's Pace): a step takes chunks of rows until `budgetMs`
 * of wall time is spent or `maxRows` rows are taken. Each chunk is sized from what a row of its
 * kind (a table, or the log) cost so far, so the chunk that spends the budget overruns it by at
 * most about one chunk: a row count alone gave the first step of a heavy table (documents after
 * small tables) too many rows. The cost rises at once to a dearer chunk and falls by halves.
 */
export class StepPace implements Pace {
  private started = 0;
  private taken = 0;
  private lastTook = 0;
  private kind = "";
  /** Per kind of step: its whole time over its chunks' time (the commit after them: FTS5's flush, the WAL write). */
  private readonly overhead = new Map<string, number>();
  private chunkStarted = 0;
  private readonly perRowMs = new Map<string, number>();

  constructor(
    private readonly budgetMs: number,
    private readonly maxRows: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A new step of `kind`: the budget and the row cap start again (the costs learned stay). */
  begin(kind: string): this {
    this.kind = kind;
    this.started = this.now();
    this.lastTook = this.started;
    this.taken = 0;
    return this;
  }

  /**
   * The step is over, `totalMs` in all: what it took beyond its chunks (a commit flushes FTS5's
   * terms and writes the WAL) shrinks the chunks' share of the next step's budget of this kind.
   */
  end(totalMs: number): void {
    const work = this.lastTook - this.started;
    if (work <= 0.5) return;
    const ratio = Math.min(MAX_OVERHEAD, Math.max(1, totalMs / work));
    const before = this.overhead.get(this.kind) ?? 1;
    this.overhead.set(this.kind, Math.max(ratio, (before + ratio) / 2));
  }

  private get budget(): number {
    return this.budgetMs / (this.overhead.get(this.kind) ?? 1);
  }

  rows(key: string): number {
    const left = this.maxRows - this.taken;
    this.chunkStarted = this.now();
    const cost = this.perRowMs.get(key);
    const fit =
      cost === undefined
        ? FIRST_CHUNK
        : Math.floor((this.budget - (this.chunkStarted - this.started)) / CHUNKS / Math.max(cost, 1e-3));
    return Math.max(1, Math.min(left, fit));
  }

  took(key: string, rows: number): void {
    this.taken += rows;
    this.lastTook = this.now();
    if (rows === 0) return;
    const cost = (this.now() - this.chunkStarted) / rows;
    const before = this.perRowMs.get(key);
    this.perRowMs.set(key, before === undefined ? cost : Math.max(cost, (before + cost) / 2));
  }

  spent(): boolean {
    return this.taken >= this.maxRows || this.now() - this.started >= this.budget;
  }

  /** How many rows of `key` one step is expected to take within the budget (at least 1). */
  fits(key: string): number {
    const cost = this.perRowMs.get(key);
    if (cost === undefined) return FIRST_CHUNK;
    return Math.max(1, Math.min(this.maxRows, Math.floor(this.budgetMs / Math.max(cost, 1e-3))));
  }
}
