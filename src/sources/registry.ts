import { bridgeRoot, type Env } from "../config/paths.js";
import type { Config } from "../config/schema.js";
import { BridgeSource } from "./bridge/source.js";
import { createClaudeSource } from "./claude-code/source.js";
import { createCodexSource } from "./codex/source.js";
import { DyadSource, indexedDyadDatabases } from "./dyad/source.js";
import { createOpencodeSource } from "./opencode/source.js";
import type { Source } from "./types.js";

export interface CreateSourcesOptions {
  /** Lines longer than this are discarded from parsing (their bytes are still retained). */
  maxLineBytes?: number;
}

/**
 * The transcript sources of this machine, one per CLI, each honouring its CLI's own
 * environment variables (CLAUDE_CONFIG_DIR, CODEX_HOME, OPENCODE_DB, XDG_DATA_HOME). A new
 * source is one folder under sources/ plus one line here.
 */
export function createSources(env: Env, config: Config, options: CreateSourcesOptions = {}): Source[] {
  const sources: Source[] = [];
  const line = options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {};
  if (config.sources.claude) sources.push(createClaudeSource(env, line));
  if (config.sources.codex) sources.push(createCodexSource(env, line));
  if (config.sources.opencode) sources.push(createOpencodeSource(env));
  for (const database of indexedDyadDatabases(env, config)) sources.push(new DyadSource(database));
  sources.push(new BridgeSource({ root: bridgeRoot(env, config.sources.bridgeDir) }));
  return sources;
}
