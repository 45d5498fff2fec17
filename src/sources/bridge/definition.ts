import { z } from "zod";
import { bridgeRoot } from "../../platform/paths.js";
import { defineSource } from "../definition.js";
import { BRIDGE_SOURCE } from "../../core/kinds.js";

/** The bridge's peers are agents the filter does not name: their documents answer `other`. */
export const BRIDGE_AGENT = "other";

export const bridge = defineSource({
  name: BRIDGE_SOURCE,
  agent: BRIDGE_AGENT,
  filter: { own: false, label: "the agent bridge" },
  displayName: "the agent bridge",
  env: ["RECALL_BRIDGE_DIR"],
  roots: (env, settings) => [bridgeRoot(env, settings.bridgeDir)],
  // recall's own store: never what "no agent history" is about.
  hasHistory: () => false,
  config: {
    /** The agent-bridge store's root (docs/bridge-store.md); RECALL_BRIDGE_DIR overrides it. */
    bridgeDir: z.string().min(1).optional(),
  },
  limits: ["maxEntries", "maxFiles"],
});
