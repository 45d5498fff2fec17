import { openRecall, type Env, type Recall } from "../app/recall.js";

/** What every command needs to know about where it runs; resolved once per process. */
export type CliContext = Recall;

export function createContext(env: Env = process.env): CliContext {
  return openRecall(env);
}
