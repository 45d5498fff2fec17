import { z } from "zod";
import { agentRoots } from "../../platform/paths.js";
import { defineSource } from "../definition.js";

/** The source name of Dyad's own userData database. */
export const DYAD_SOURCE = "dyad";
export const DYAD_AGENT = "dyad";

export const dyad = defineSource({
  name: DYAD_SOURCE,
  agent: DYAD_AGENT,
  filter: { own: false, label: "Dyad chats" },
  displayName: "Dyad",
  env: ["XDG_CONFIG_HOME"],
  roots: (env) => [agentRoots(env).dyadUserData],
  lookedIn: (env) => [agentRoots(env).dyadUserData],
  // Not detected by `npm start`: a Dyad user searches from inside Dyad (embedded mode).
  hasHistory: () => false,
  config: {
    /** Dyad's own chat database (its userData sqlite.db), indexed read-only when present. */
    dyad: z.boolean().default(true),
    /** Dyad-shaped chat databases to index read-only, besides Dyad's own userData sqlite.db. */
    dyadDatabases: z.array(z.string().min(1)).default([]),
    /** Dyad's apps folder, against which relative apps.path values resolve. */
    dyadAppsDir: z.string().min(1).optional(),
  },
  limits: [],
});
