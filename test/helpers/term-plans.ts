import { plannerTuning } from "../../src/search/planner.js";

/**
 * Runs `body` with every plan ranking through term statistics (impact lists), as common words do
 * at scale; a small test index would otherwise be ranked exactly.
 */
export async function withTermStatisticsPlans(body: () => unknown): Promise<void> {
  Object.assign(plannerTuning, { exactMaxRows: 0, enumerateMaxRows: 0, filteredMaxRows: 0 });
  try {
    await body();
  } finally {
    for (const key of Object.keys(plannerTuning)) delete (plannerTuning as Record<string, unknown>)[key];
  }
}
