import { z } from "zod";
import { defineSource } from "../definition.js";
import { qwenHasHistory, qwenHome, qwenProjects, qwenRuntime } from "./paths.js";

export const QWEN_SOURCE = "qwen-code";
export const QWEN_AGENT = "qwen";

export const qwen = defineSource({
  name: QWEN_SOURCE,
  agent: QWEN_AGENT,
  filter: { own: true, other: true },
  displayName: "Qwen Code",
  conversationId: "qwen:<session>",
  env: ["QWEN_HOME", "QWEN_RUNTIME_DIR"],
  roots: (env) => [...new Set([qwenHome(env), qwenRuntime(env)])],
  lookedIn: (env) => [qwenProjects(env)],
  hasHistory: qwenHasHistory,
  config: { qwen: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
});
