import path from "node:path";
import type { Env } from "../../platform/paths.js";

/** CONTINUE_GLOBAL_DIR, else ~/.continue. */
export const continueDir = (env: Env) =>
  path.resolve(env.CONTINUE_GLOBAL_DIR || path.join(env.HOME ?? "/", ".continue"));

export const continueSessionsDir = (env: Env) => path.join(continueDir(env), "sessions");
