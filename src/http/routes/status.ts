import { AGENT_CHOICES, readCoverage, readPublishedCoverage, rebuildingNow } from "../../app/status.js";
import { singleParams } from "../params.js";
import type { Route } from "../route.js";

/**
 * GET /api/status: index coverage per source as every search reports it, and whether any
 * source is still being indexed (a first backfill, a reindex, a backlog); the sources' display names
 * and the agent filter's choices, so the dashboard names every registered agent.
 */
export const statusRoute: Route = {
  method: "GET",
  pattern: /^\/api\/status$/,
  handle({ query, services }) {
    singleParams(query, []);
    const now = services.now();
    const coverage = readCoverage(services.db, now);
    const published = readPublishedCoverage(services.db);
    const rebuilding = rebuildingNow(published, now);
    return {
      json: {
        engine: services.engine,
        indexing: rebuilding || coverage.some((c) => c.state === "indexing"),
        rebuilding,
        writer: published?.writer ?? null,
        publishedAt: published?.publishedAt ?? null,
        lastRun: published?.lastRun ?? null,
        coverage,
        /** The agent filter's choices with their display names (registry-derived). */
        agents: AGENT_CHOICES,
      },
    };
  },
};
