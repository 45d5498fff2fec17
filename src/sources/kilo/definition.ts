import { z } from "zod";
import { defineSource } from "../definition.js";
import { kiloDataDir, kiloDatabases } from "./paths.js";

export const KILO_SOURCE = "kilo";
export const KILO_AGENT = "kilo";

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
});
