import type { Db } from "../store/open.js";
import {
  plannerTuning,
  rankExact,
  type PlanName,
  type RankRequest,
  type RankResult,
} from "../search/planner.js";
import { clearTermCache } from "../search/term-cache.js";
import {
  distribution,
  fig,
  mean,
  overlapAt,
  round,
  timeAsync,
  type Distribution,
  type Figure,
} from "./measure.js";

/** What the planner did for a class of queries, and how close its fast answers are to exact bm25. */
export interface PlanFigures {
  plans: Record<PlanName, Figure>;
  /** Queries whose every ranking was proven equal to the reference. */
  provenExact: Figure;
  /** Mean top-10 overlap of the planned ranking with the reference ranking (bm25 ORDER BY). */
  rankingOverlap: Figure;
  /** Mean top-10 overlap of the tool's results with the tool run on the reference plan. */
  resultOverlap: Figure;
  /** Reference plan timings for the same queries (what the tool would cost without planning). */
  referenceLatency: Distribution;
}

export interface Observed {
  request: RankRequest;
  result: RankResult;
}

/** Runs `fn` while recording every plan the planner chooses. */
export async function observing<T>(fn: () => Promise<T>): Promise<{ value: T; observed: Observed[] }> {
  const observed: Observed[] = [];
  plannerTuning.observe = (result, request) => observed.push({ request, result });
  try {
    return { value: await fn(), observed };
  } finally {
    delete plannerTuning.observe;
  }
}

export async function withReferencePlan<T>(fn: () => Promise<T>): Promise<T> {
  plannerTuning.exact = true;
  try {
    return await fn();
  } finally {
    delete plannerTuning.exact;
  }
}

export interface ClassRun<R> {
  first: number[];
  warm: number[];
  results: R[];
  observed: Observed[][];
}

/**
 * One class of queries: a first pass (cold caches: impact lists are built on first use, and the
 * first pass pays for it), then the timed warm pass. Returns per-query timings and results.
 */
export async function runClass<Q, R>(
  db: Db,
  queries: readonly Q[],
  run: (q: Q) => Promise<R>,
): Promise<ClassRun<R>> {
  clearTermCache(db);
  const first: number[] = [];
  for (const q of queries) first.push((await timeAsync(() => run(q))).ms);
  const warm: number[] = [];
  const results: R[] = [];
  const observed: Observed[][] = [];
  for (const q of queries) {
    const { value, observed: seen } = await observing(() => timeAsync(() => run(q)));
    warm.push(value.ms);
    results.push(value.value);
    observed.push(seen);
  }
  return { first, warm, results, observed };
}

/**
 * Fidelity of a class: ranking overlap for every planned ranking (against rankExact on the same
 * request), and, for a sample of queries, the tool's top-10 against the tool on the reference plan.
 */
export async function planFigures<Q, R>(
  db: Db,
  queries: readonly Q[],
  run: ClassRun<R>,
  rerun: (q: Q) => Promise<R>,
  ids: (r: R) => readonly (string | number)[],
  sample: number,
): Promise<PlanFigures> {
  const plans: Record<PlanName, number> = { exact: 0, enumerate: 0, filtered: 0, impact: 0, fallback: 0 };
  let proven = 0;
  const ranking: number[] = [];
  for (const seen of run.observed) {
    let all = true;
    for (const o of seen) {
      plans[o.result.plan]++;
      if (!o.result.exact) all = false;
    }
    if (all) proven++;
  }
  // An odd step: query lists interleave sub-classes (filtered cycles through four), and an even
  // step would sample only some of them.
  let step = Math.max(1, Math.floor(queries.length / Math.max(1, sample)));
  if (step > 1 && step % 2 === 0) step -= 1;
  const result: number[] = [];
  const reference: number[] = [];
  for (let i = 0; i < queries.length; i += step) {
    for (const o of run.observed[i] ?? []) {
      if (o.result.plan === "exact" || o.result.plan === "fallback") {
        ranking.push(1);
        continue;
      }
      const exact = rankExact(db, o.request);
      const ov = overlapAt(
        o.result.rows.map((r) => r.id),
        exact.map((r) => r.id),
      );
      if (ov !== null) ranking.push(ov);
    }
    const { ms, value } = await withReferencePlan(() => timeAsync(() => rerun(queries[i]!)));
    reference.push(ms);
    const ov = overlapAt(ids(run.results[i]!), ids(value));
    if (ov !== null) result.push(ov);
  }
  const total = run.observed.length;
  return {
    plans: Object.fromEntries(Object.entries(plans).map(([k, v]) => [k, fig(v, "rankings")])) as Record<
      PlanName,
      Figure
    >,
    provenExact: fig(total === 0 ? null : round(proven / total), "share of queries"),
    rankingOverlap: fig(round(mean(ranking)), "mean top-10 overlap"),
    resultOverlap: fig(round(mean(result)), "mean top-10 overlap"),
    referenceLatency: distribution(reference),
  };
}
