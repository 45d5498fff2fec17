import path from "node:path";
import { home, type Env } from "../../platform/paths.js";

/** COPILOT_HOME moves the whole folder, as the CLI documents it. */
export const copilotHome = (env: Env) => path.resolve(env.COPILOT_HOME || path.join(home(env), ".copilot"));

export const copilotSessions = (env: Env) => path.join(copilotHome(env), "session-state");
