import { z } from "zod";
import { defineSource } from "../definition.js";
import { piAgentDir, piSessions } from "./paths.js";
import { nonEmptyDir } from "../files/presence.js";

export const PI_SOURCE = "pi";
export const PI_AGENT = "pi";

export const pi = defineSource({
  name: PI_SOURCE,
  agent: PI_AGENT,
  filter: { own: true, other: true },
  displayName: "pi",
  conversationId: "pi:<session>",
  env: ["PI_CODING_AGENT_DIR"],
  roots: (env) => [piAgentDir(env)],
  lookedIn: (env) => [piSessions(env)],
  hasHistory: (env) => nonEmptyDir(piSessions(env)),
  config: { pi: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
});
