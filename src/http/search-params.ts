import { SearchHistoryInput } from "../tools/search-history-input.js";
import { booleanText, integerText, paramError, singleParams } from "./params.js";

/** The spec's /api/search parameters; `q` is the query, the rest map onto search_history's input. */
const FILTERS = ["project", "session", "job", "agent", "kind", "since", "until"] as const;
export const SEARCH_PARAMS = ["q", ...FILTERS, "limit", "answer"] as const;

/** search_history input paths back to the parameter names a caller used. */
function paramName(path: readonly PropertyKey[]): string {
  const [first, second] = path;
  if (first === "query") return "q";
  if (first === "filters") return second === undefined ? "filters" : String(second);
  return first === undefined ? "(query)" : String(first);
}

/**
 * /api/search query → search_history's raw input, validated by the tool's own schema (same
 * defaults, same bounds). Returns the raw object, so the tool sees exactly what MCP would send.
 */
export function searchInputFromQuery(query: URLSearchParams): Record<string, unknown> {
  const params = singleParams(query, SEARCH_PARAMS);
  const filters: Record<string, unknown> = {};
  for (const name of FILTERS) if (params[name] !== undefined) filters[name] = params[name];
  const input: Record<string, unknown> = { query: params.q ?? "" };
  if (Object.keys(filters).length > 0) input.filters = filters;
  if (params.limit !== undefined) input.limit = integerText(params.limit);
  if (params.answer !== undefined) input.answer = booleanText(params.answer);
  const parsed = SearchHistoryInput.safeParse(input);
  if (!parsed.success) throw paramError(parsed.error, paramName);
  return input;
}
