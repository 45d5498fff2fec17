import path from "node:path";
import { z } from "zod";
import { agentRoots } from "../../platform/paths.js";
import { defineSource } from "../definition.js";
import { nonEmptyDir } from "../files/presence.js";

export const CLAUDE_SOURCE = "claude-code";
export const CLAUDE_AGENT = "claude";

export const claudeCode = defineSource({
  name: CLAUDE_SOURCE,
  agent: CLAUDE_AGENT,
  filter: { own: true },
  displayName: "Claude Code",
  conversationId: "claude:<session>",
  env: ["CLAUDE_CONFIG_DIR"],
  roots: (env) => agentRoots(env).claude,
  lookedIn: (env) => agentRoots(env).claude,
  hasHistory: (env) => agentRoots(env).claude.some((r) => nonEmptyDir(path.join(r, "projects"))),
  config: { claude: z.boolean().default(true) },
  limits: ["maxEntries", "maxFiles"],
});
