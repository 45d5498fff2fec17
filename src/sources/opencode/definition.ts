import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { agentRoots } from "../../platform/paths.js";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";

export const OPENCODE_SOURCE = "opencode";
export const OPENCODE_AGENT = "opencode";

export const opencode = defineSource({
  name: OPENCODE_SOURCE,
  agent: OPENCODE_AGENT,
  filter: { own: true },
  displayName: "opencode",
  conversationId: "opencode:<session>",
  env: ["XDG_DATA_HOME", "OPENCODE_DB"],
  roots: (env) => {
    const roots = agentRoots(env);
    return roots.opencodeDb
      ? [roots.opencodeDataDir, path.dirname(roots.opencodeDb)]
      : [roots.opencodeDataDir];
  },
  lookedIn: (env) => {
    const roots = agentRoots(env);
    return [roots.opencodeDb ?? roots.opencodeDataDir];
  },
  hasHistory: (env) => {
    const roots = agentRoots(env);
    return (
      (roots.opencodeDb !== null && existsSync(roots.opencodeDb)) ||
      existsSync(path.join(roots.opencodeDataDir, "opencode.db")) ||
      nonEmptyDir(path.join(roots.opencodeDataDir, "storage"))
    );
  },
  config: { opencode: z.boolean().default(true) },
  limits: ["maxEntries", "maxSessionRows"],
});
