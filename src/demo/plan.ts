import type { Rng } from "./rng.js";

/**
 * Shared planning for every source: how many messages each session gets, when it starts, which
 * project it belongs to, and the corpus's fake HOME and project paths.
 */

/** The corpus pretends HOME=/home/demo, so file contents never depend on where it is written. */
export const DEMO_HOME = "/home/demo";

/** 2026-10-01T00:00:00Z minus one year: the default oldest message (a constant, never the clock). */
export const DEFAULT_BASE_TIME = Date.UTC(2025, 9, 1, 8, 0, 0);
export const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Project paths (cwd) shared by the CLI sources. They cover Claude's slug rule: dots, spaces,
 * underscores and non-ASCII characters all become "-".
 */
const NAMED_PROJECTS = [
  `${DEMO_HOME}/code/billing-api`,
  `${DEMO_HOME}/code/café-menu`,
  `${DEMO_HOME}/code/mobile_app v2`,
  `${DEMO_HOME}/code/search-ui`,
  `${DEMO_HOME}/work/data-pipeline`,
  `${DEMO_HOME}/src/github.com/acme/recall-plugin`,
  `${DEMO_HOME}/.config/dotfiles`,
  `${DEMO_HOME}/Documents/Projekte/Übersicht`,
  `${DEMO_HOME}/code/infra.terraform`,
  `${DEMO_HOME}/code/design-system`,
];

export function projectPaths(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(NAMED_PROJECTS[i] ?? `${DEMO_HOME}/code/project-${String(i + 1).padStart(3, "0")}`);
  return out;
}

/** Claude Code's project-directory slug: every character outside [A-Za-z0-9] becomes "-". */
export function claudeSlug(cwd: string): string {
  let out = "";
  for (const ch of cwd) out += /^[A-Za-z0-9]$/.test(ch) ? ch : "-";
  return out;
}

export interface SessionPlan {
  /** 0-based, in start-time order. */
  index: number;
  messages: number;
  /** Epoch ms of the first message. */
  start: number;
  /** Index into the source's project list. */
  project: number;
  /** Position of the start within the corpus's year, 0..1 (selects version eras). */
  era: number;
}

export interface PlanInput {
  messages: number;
  sessions: number;
  projects: number;
  baseTime: number;
  /** Fraction of the year this plan covers (default the whole year). */
  from?: number;
  to?: number;
  /** Minimum messages per session (default 2). */
  minPerSession?: number;
}

/**
 * Splits `messages` over `sessions` with a skewed (log-normal) size distribution — many short
 * sessions, a few long ones — and spreads session starts over the time window in order.
 */
export function planSessions(rng: Rng, input: PlanInput): SessionPlan[] {
  const min = input.minPerSession ?? 2;
  const n = Math.max(1, Math.min(input.sessions, Math.floor(input.messages / min)));
  const weights: number[] = [];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    let w = Math.exp(0.8 * rng.normal());
    if (rng.chance(0.06)) w *= 4;
    weights.push(w);
    sum += w;
  }
  const spare = Math.max(0, input.messages - n * min);
  const counts = weights.map((w) => min + Math.floor((spare * w) / sum));
  let assigned = counts.reduce((a, b) => a + b, 0);
  for (let i = 0; assigned < input.messages; i = (i + 1) % n) {
    counts[i] = (counts[i] as number) + 1;
    assigned++;
  }
  const from = input.from ?? 0;
  const to = input.to ?? 1;
  const projectWeights = Array.from({ length: Math.max(1, input.projects) }, (_, i) => 1 / (i + 1));
  const pw = projectWeights.map((w, i) => [i, w] as const);
  const plans: SessionPlan[] = [];
  for (let i = 0; i < n; i++) {
    const era = from + ((to - from) * (i + 0.1 + 0.8 * rng.next())) / n;
    plans.push({
      index: i,
      messages: counts[i] as number,
      start: input.baseTime + Math.floor(era * YEAR_MS),
      project: i < input.projects ? i : rng.weighted(pw),
      era,
    });
  }
  return plans;
}

/** ISO 8601 UTC with milliseconds, as every CLI writes. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Counts generated messages and reports progress in coarse steps. */
export class Progress {
  private done = 0;
  private lastReported = 0;
  constructor(
    readonly total: number,
    private readonly onProgress?: (done: number, total: number) => void,
  ) {}
  add(n: number): void {
    this.done += n;
    if (this.onProgress !== undefined && this.done - this.lastReported >= 2000) {
      this.lastReported = this.done;
      this.onProgress(Math.min(this.done, this.total), this.total);
    }
  }
  finish(): void {
    this.onProgress?.(this.total, this.total);
  }
}
