import { z } from "zod";
import { defineSource } from "../definition.js";
import { copilotHome, copilotSessions } from "./paths.js";
import { nonEmptyDir } from "../files/presence.js";

export const COPILOT_SOURCE = "copilot-cli";
export const COPILOT_AGENT = "copilot";

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
});
