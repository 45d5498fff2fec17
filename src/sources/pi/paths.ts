import path from "node:path";
import { home, type Env } from "../../platform/paths.js";

/** PI_CODING_AGENT_DIR replaces ~/.pi/agent, as pi reads it. */
export const piAgentDir = (env: Env) =>
  path.resolve(env.PI_CODING_AGENT_DIR || path.join(home(env), ".pi", "agent"));

export const piSessions = (env: Env) => path.join(piAgentDir(env), "sessions");
