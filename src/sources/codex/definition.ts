import path from "node:path";
import { z } from "zod";
import { agentRoots } from "../../platform/paths.js";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";

export const CODEX_SOURCE = "codex";
export const CODEX_AGENT = "codex";

export const codex = defineSource({
  name: CODEX_SOURCE,
  agent: CODEX_AGENT,
  filter: { own: true },
  displayName: "Codex",
  conversationId: "codex:<thread>",
  env: ["CODEX_HOME"],
  roots: (env) => [agentRoots(env).codex],
  lookedIn: (env) => [agentRoots(env).codex],
  hasHistory: (env) =>
    nonEmptyDir(path.join(agentRoots(env).codex, "sessions")) ||
    nonEmptyDir(path.join(agentRoots(env).codex, "archived_sessions")),
  config: { codex: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
});
