import type { Route } from "../route.js";
import { assetRoutes } from "./assets.js";
import { decisionHistoryRoute, runLogRoute } from "./bridge.js";
import { activityRoute, familyRoute, projectsRoute, recentRoute } from "./browse.js";
import { exportRoute } from "./export.js";
import { consultedRoute } from "./consulted.js";
import { conversationsRoute } from "./conversations.js";
import { historyRoute } from "./history.js";
import { locateRoute } from "./locate.js";
import { searchRoute } from "./search.js";
import { statusRoute } from "./status.js";

/**
 * The route table, tried in order. A new endpoint is one file in this folder and one line here.
 */
export const ROUTES: readonly Route[] = [
  searchRoute,
  historyRoute,
  conversationsRoute,
  locateRoute,
  statusRoute,
  consultedRoute,
  runLogRoute,
  decisionHistoryRoute,
  recentRoute,
  projectsRoute,
  activityRoute,
  familyRoute,
  exportRoute,
  ...assetRoutes,
];
