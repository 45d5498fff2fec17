import {
  activity,
  ActivityInput,
  conversationFamily,
  projectSummaries,
  recent,
  RecentInput,
} from "../../app/browse.js";
import { integerText, paramError, singleParams } from "../params.js";
import { HttpError } from "../respond.js";
import type { Route } from "../route.js";
import { decodeSegment } from "../segment.js";

/** Query text → a schema's input: integers converted, the rest passed on for zod to judge. */
function numbersIn(params: Record<string, string | undefined>, numeric: readonly string[]) {
  const raw: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) raw[name] = numeric.includes(name) ? integerText(value) : value;
  }
  return raw;
}

const byPath = (path: readonly PropertyKey[]) => String(path[0] ?? "(query)");

/**
 * GET /api/recent?project=&agent=&offset=&limit=: top-level conversations, most recently
 * written first, with title or first prompt, agent, project, times and size; `more` when
 * another page follows.
 */
export const recentRoute: Route = {
  method: "GET",
  pattern: /^\/api\/recent$/,
  handle({ query, services }) {
    const p = singleParams(query, ["project", "agent", "offset", "limit"]);
    const parsed = RecentInput.safeParse(numbersIn(p, ["offset", "limit"]));
    if (!parsed.success) throw paramError(parsed.error, byPath);
    return { json: recent(services.db, parsed.data) };
  },
};

/** GET /api/projects: every project with its conversations per agent, most recently active first. */
export const projectsRoute: Route = {
  method: "GET",
  pattern: /^\/api\/projects$/,
  handle({ query, services }) {
    singleParams(query, []);
    return { json: { projects: projectSummaries(services.db) } };
  },
};

/** GET /api/activity?days=&utc_offset=: sessions started per day and agent. */
export const activityRoute: Route = {
  method: "GET",
  pattern: /^\/api\/activity$/,
  handle({ query, services }) {
    const p = singleParams(query, ["days", "utc_offset"]);
    const parsed = ActivityInput.safeParse(numbersIn(p, ["days", "utc_offset"]));
    if (!parsed.success) throw paramError(parsed.error, byPath);
    return { json: activity(services.db, parsed.data) };
  },
};

/** GET /api/family/<conversation id>: the conversation's summary, its parent's and its sub-agents'. */
export const familyRoute: Route = {
  method: "GET",
  pattern: /^\/api\/family\/([^/]+)$/,
  handle({ params, query, services }) {
    singleParams(query, []);
    const family = conversationFamily(services.db, decodeSegment(params[0]!, "id"));
    if (!family) throw new HttpError(404, "id: no retained conversation has this id");
    return { json: family };
  },
};
