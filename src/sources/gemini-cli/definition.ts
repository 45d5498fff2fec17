import { z } from "zod";
import { defineSource } from "../definition.js";
import { geminiDir, geminiHasHistory, geminiProjects } from "./paths.js";
import { createGeminiSource, GEMINI_AGENT, GEMINI_SOURCE } from "./source.js";

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
  create: ({ env, settings, maxLineBytes }) =>
    settings.gemini ? [createGeminiSource(env, maxLineBytes !== undefined ? { maxLineBytes } : {})] : [],
});
