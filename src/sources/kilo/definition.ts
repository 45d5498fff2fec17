import { z } from "zod";
import { defineSource } from "../definition.js";
import { createKiloSource, KILO_AGENT, KILO_SOURCE, kiloDatabases, kiloDataDir } from "./source.js";

export const kilo = defineSource({
  name: KILO_SOURCE,
  agent: KILO_AGENT,
  filter: { own: true, other: true },
  displayName: "Kilo Code",
  conversationId: "kilo:<session>",
  env: ["XDG_DATA_HOME"],
  roots: (env) => [kiloDataDir(env)],
  lookedIn: (env) => [kiloDataDir(env)],
  hasHistory: (env) => kiloDatabases(env).length > 0,
  config: { kilo: z.boolean().default(true) },
  limits: ["maxSessionRows"],
  create: ({ env, settings, maxLineBytes }) => (settings.kilo ? [createKiloSource(env, maxLineBytes)] : []),
});
