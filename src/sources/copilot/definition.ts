import { z } from "zod";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";
import {
  COPILOT_AGENT,
  COPILOT_SOURCE,
  copilotHome,
  copilotSessions,
  createCopilotSource,
} from "./source.js";

export const copilot = defineSource({
  name: COPILOT_SOURCE,
  agent: COPILOT_AGENT,
  filter: { own: true, other: true },
  displayName: "GitHub Copilot CLI",
  conversationId: "copilot:<session>",
  env: ["COPILOT_HOME"],
  roots: (env) => [copilotHome(env)],
  lookedIn: (env) => [copilotSessions(env)],
  hasHistory: (env) => nonEmptyDir(copilotSessions(env)),
  config: { copilot: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
  create: ({ env, settings, maxLineBytes }) =>
    settings.copilot ? [createCopilotSource(env, maxLineBytes !== undefined ? { maxLineBytes } : {})] : [],
});
