import { loadConfig } from "../config/load.js";
import { recallHome, type Env } from "../platform/paths.js";
import type { Config } from "../config/schema.js";
import { RecallError } from "../core/errors.js";
import type { Engine } from "../store/fts-probe.js";

export { agentRoots, bridgeRoot, recallHome, type Env } from "../platform/paths.js";
export type { Config } from "../config/schema.js";
export type { Engine } from "../store/fts-probe.js";

/** Where one process of recall runs: its environment, RECALL_HOME and config; resolved once. */
export interface Recall {
  env: Env;
  home: string;
  /** config.json, read on first use (commands that need none never fail on a broken one). */
  config: () => Config;
  /** RECALL_ENGINE: the engine a NEW index is created with (tests force plain). */
  forcedEngine: Engine | undefined;
}

export function openRecall(env: Env = process.env): Recall {
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
