import path from "node:path";
import { userHome, type Env } from "../../platform/paths.js";
import { nonEmptyDir } from "../files/presence.js";
import { readdirSync } from "node:fs";

/** Gemini CLI's folder: `.gemini` under GEMINI_CLI_HOME (the CLI's stand-in for the home folder), else ~. */
export const geminiDir = (env: Env) => path.resolve(env.GEMINI_CLI_HOME || userHome(env), ".gemini");

/** `<.gemini>/tmp`: one folder per project, each with `chats/`. */
export const geminiProjects = (env: Env) => path.join(geminiDir(env), "tmp");

/** Some project folder holds a chat. */
export function geminiHasHistory(env: Env): boolean {
  const root = geminiProjects(env);
  try {
    return readdirSync(root).some((slug) => nonEmptyDir(path.join(root, slug, "chats")));
  } catch {
    return false;
  }
}
