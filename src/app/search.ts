/** What `recall search` and `recall start` show beside search_history's own output. */
export { createAnswerer } from "../answer/index.js";
export { searchHistory, type HistoryHit } from "../search/history.js";
export { queryTokens } from "../search/query.js";
export { foldText } from "../store/fold.js";
export type { SearchCoverage } from "../store/coverage-row.js";
export { readSnapshot } from "../store/snapshot.js";
