import { z } from "zod";
import { defineSource } from "../definition.js";
import { geminiDir, geminiHasHistory, geminiProjects } from "./paths.js";

export const GEMINI_SOURCE = "gemini-cli";
export const GEMINI_AGENT = "gemini";

export const gemini = defineSource({
  name: GEMINI_SOURCE,
  agent: GEMINI_AGENT,
  filter: { own: true, other: true },
  displayName: "Gemini CLI",
  conversationId: "gemini:<session>",
  env: ["GEMINI_CLI_HOME"],
  roots: (env) => [geminiDir(env)],
  lookedIn: (env) => [geminiProjects(env)],
  hasHistory: geminiHasHistory,
  config: { gemini: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
});
