import { z } from "zod";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";
import { createPiSource, PI_AGENT, PI_SOURCE, piAgentDir, piSessions } from "./source.js";

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
  create: ({ env, settings, maxLineBytes }) =>
    settings.pi ? [createPiSource(env, maxLineBytes !== undefined ? { maxLineBytes } : {})] : [],
});
