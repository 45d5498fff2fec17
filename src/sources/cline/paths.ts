import path from "node:path";
import type { Env } from "../../platform/paths.js";

/** CLINE_DIR, else ~/.cline. */
export const clineDir = (env: Env) => path.resolve(env.CLINE_DIR || path.join(env.HOME ?? "/", ".cline"));

export const clineSessionsDir = (env: Env) => path.join(clineDir(env), "data", "sessions");
