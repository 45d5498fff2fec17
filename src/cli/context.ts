import { loadConfig } from "../config/load.js";
import { recallHome, type Env } from "../config/paths.js";
import type { Config } from "../config/schema.js";
import type { Engine } from "../store/fts-probe.js";
import { RecallError } from "../core/errors.js";

/** What every command needs to know about where it runs; resolved once per process. */
export interface CliContext {
  env: Env;
  home: string;
  config: () => Config;
  forcedEngine: Engine | undefined;
}

export function createContext(env: Env = process.env): CliContext {
  const home = recallHome(env);
  let config: Config | undefined;
  const forced = env.RECALL_ENGINE;
  if (forced !== undefined && forced !== "plain" && forced !== "fts5") {
    throw new RecallError("Config", `RECALL_ENGINE must be "plain" or "fts5", not "${forced}"`);
  }
  return {
    env,
    home,
    config: () => (config ??= loadConfig(home)),
    forcedEngine: forced,
  };
}
