import { z } from "zod";
import { defineSource } from "../definition.js";
import { continueDir, continueSessionsDir } from "./paths.js";
import { nonEmptyDir } from "../files/presence.js";

export const CONTINUE_SOURCE = "continue";
export const CONTINUE_AGENT = "continue";

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
});
