import { activity, ActivityInput, projectSummaries, recent, RecentInput } from "../app/browse.js";
import type { Db } from "../store/open.js";
import { distribution, fig, timeSync, type Distribution, type Figure } from "./measure.js";

export interface DashboardFigures {
  /** The landing page's three reads, as the page makes them: recent conversations, projects, activity. */
  landing: Distribution;
  /** The first of them, before any ran in this process (statements unprepared, pages not yet read). */
  first: Figure;
  conversations: Figure;
}

/**
 * The dashboard's landing page without a query: the first page of recent conversations (with
 * first prompts and sub-agent counts), the projects list and 90 days of sessions per day, timed
 * together as one page load.
 */
export function benchDashboard(db: Db, samples: number): DashboardFigures {
  const load = () => {
    recent(db, RecentInput.parse({ limit: 20 }));
    projectSummaries(db);
    activity(db, ActivityInput.parse({ days: 90 }));
  };
  const first = timeSync(load).ms;
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(timeSync(load).ms);
  const { n } = db.prepare("SELECT count(*) AS n FROM recall_conversations").get() as { n: number };
  return {
    landing: distribution(times),
    first: fig(Math.round(first * 10) / 10, "ms"),
    conversations: fig(n, "conversations"),
  };
}
