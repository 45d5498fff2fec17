import { z } from "zod";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";
import {
  CONTINUE_AGENT,
  CONTINUE_SOURCE,
  continueDir,
  continueSessionsDir,
  createContinueSource,
} from "./source.js";

export const continueCli = defineSource({
  name: CONTINUE_SOURCE,
  agent: CONTINUE_AGENT,
  filter: { own: true, other: true },
  displayName: "Continue",
  conversationId: "continue:<session>",
  env: ["CONTINUE_GLOBAL_DIR"],
  roots: (env) => [continueDir(env)],
  lookedIn: (env) => [continueSessionsDir(env)],
  hasHistory: (env) => nonEmptyDir(continueSessionsDir(env)),
  config: { continue: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
  create: ({ env, settings, maxLineBytes }) =>
    settings.continue ? [createContinueSource(env, maxLineBytes)] : [],
});
