import { z } from "zod";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";
import { CLINE_AGENT, CLINE_SOURCE, clineDir, clineSessionsDir, createClineSource } from "./source.js";

export const cline = defineSource({
  name: CLINE_SOURCE,
  agent: CLINE_AGENT,
  filter: { own: true, other: true },
  displayName: "Cline",
  conversationId: "cline:<session>",
  env: ["CLINE_DIR"],
  roots: (env) => [clineDir(env)],
  lookedIn: (env) => [clineSessionsDir(env)],
  hasHistory: (env) => nonEmptyDir(clineSessionsDir(env)),
  config: { cline: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
  create: ({ env, settings, maxLineBytes }) => (settings.cline ? [createClineSource(env, maxLineBytes)] : []),
});
