import { z } from "zod";
import { defineSource } from "../definition.js";
import { clineDir, clineSessionsDir } from "./paths.js";
import { nonEmptyDir } from "../files/presence.js";

export const CLINE_SOURCE = "cline";
export const CLINE_AGENT = "cline";

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
});
