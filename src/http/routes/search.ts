import type { Route } from "../route.js";
import { searchInputFromQuery } from "../search-params.js";
import { callTool } from "../tool-call.js";

/** GET /api/search: the spec's parameters; the answer is search_history's own JSON, unchanged. */
export const searchRoute: Route = {
  method: "GET",
  pattern: /^\/api\/search$/,
  async handle({ query, services, signal }) {
    const input = searchInputFromQuery(query);
    return { json: await callTool(services.home, services.tools.searchHistory, input, { signal }) };
  },
};
