import { readdirSync } from "node:fs";
import path from "node:path";
import { userHome, type Env } from "../../platform/paths.js";
import { nonEmptyDir } from "../files/presence.js";

/** `~` at the start of a Qwen variable is the home folder, as Qwen Code expands it. */
function expand(value: string, env: Env): string {
  return value === "~" || value.startsWith("~/") ? path.join(userHome(env), value.slice(1)) : value;
}

/** Qwen Code's folder: QWEN_HOME, else ~/.qwen. */
export const qwenHome = (env: Env) =>
  path.resolve(env.QWEN_HOME ? expand(env.QWEN_HOME, env) : path.join(userHome(env), ".qwen"));

/** Where it writes sessions and outputs: QWEN_RUNTIME_DIR, else its folder. */
export const qwenRuntime = (env: Env) =>
  env.QWEN_RUNTIME_DIR ? path.resolve(expand(env.QWEN_RUNTIME_DIR, env)) : qwenHome(env);

/** `<runtime>/projects`: one folder per working directory, each with `chats/`. */
export const qwenProjects = (env: Env) => path.join(qwenRuntime(env), "projects");

export function qwenHasHistory(env: Env): boolean {
  const root = qwenProjects(env);
  try {
    return readdirSync(root).some((slug) => nonEmptyDir(path.join(root, slug, "chats")));
  } catch {
    return false;
  }
}
