import { bridgeRoot, type Env } from "../platform/paths.js";
import { bridge } from "./bridge/definition.js";
import { BridgeSource } from "./bridge/source.js";
import { claudeCode } from "./claude-code/definition.js";
import { createClaudeSource } from "./claude-code/source.js";
import { cline } from "./cline/definition.js";
import { createClineSource } from "./cline/source.js";
import { codex } from "./codex/definition.js";
import { createCodexSource } from "./codex/source.js";
import { continueCli } from "./continue/definition.js";
import { createContinueSource } from "./continue/source.js";
import { copilot } from "./copilot/definition.js";
import { createCopilotSource } from "./copilot/source.js";
import { readable, type ReadableSource } from "./definition.js";
import { ownAgents } from "./derive.js";
import { dyad } from "./dyad/definition.js";
import { DyadSource, indexedDyadDatabases } from "./dyad/source.js";
import { gemini } from "./gemini-cli/definition.js";
import { createGeminiSource } from "./gemini-cli/source.js";
import { kilo } from "./kilo/definition.js";
import { createKiloSource } from "./kilo/source.js";
import { opencode } from "./opencode/definition.js";
import { createOpencodeSource } from "./opencode/source.js";
import { pi } from "./pi/definition.js";
import { createPiSource } from "./pi/source.js";
import { qwen } from "./qwen-code/definition.js";
import { createQwenSource } from "./qwen-code/source.js";
import type { SourcesConfig } from "./registry.js";
import type { Source } from "./types.js";

const lineBound = (maxLineBytes: number | undefined) => (maxLineBytes !== undefined ? { maxLineBytes } : {});

/**
 * The registry's sources (registry.ts, same order) with their readers: only a process that
 * indexes imports this module.
 */
export const READABLE_SOURCES = [
  readable(claudeCode, ({ env, settings, maxLineBytes }) =>
    settings.claude ? [createClaudeSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(codex, ({ env, settings, maxLineBytes }) =>
    settings.codex ? [createCodexSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(opencode, ({ env, settings }) => (settings.opencode ? [createOpencodeSource(env)] : [])),
  readable(gemini, ({ env, settings, maxLineBytes }) =>
    settings.gemini ? [createGeminiSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(qwen, ({ env, settings, maxLineBytes }) =>
    settings.qwen ? [createQwenSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(copilot, ({ env, settings, maxLineBytes }) =>
    settings.copilot ? [createCopilotSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(pi, ({ env, settings, maxLineBytes }) =>
    settings.pi ? [createPiSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(cline, ({ env, settings, maxLineBytes }) =>
    settings.cline ? [createClineSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(kilo, ({ env, settings, maxLineBytes }) =>
    settings.kilo ? [createKiloSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(continueCli, ({ env, settings, maxLineBytes }) =>
    settings.continue ? [createContinueSource(env, lineBound(maxLineBytes))] : [],
  ),
  readable(dyad, ({ env, settings }) =>
    indexedDyadDatabases(env, settings).map((database) => new DyadSource(database)),
  ),
  readable(bridge, ({ env, settings, agents }) => [
    new BridgeSource({ root: bridgeRoot(env, settings.bridgeDir), agents }),
  ]),
] as const;

export interface CreateSourcesOptions {
  /** Lines longer than this are discarded from parsing (their bytes are still retained). */
  maxLineBytes?: number;
}

/**
 * The sources of this machine, one per CLI (Dyad: one per database), each honouring its CLI's
 * own environment variables (CLAUDE_CONFIG_DIR, CODEX_HOME, OPENCODE_DB, XDG_DATA_HOME, COPILOT_HOME,
 * PI_CODING_AGENT_DIR).
 */
export function createSources(
  env: Env,
  config: { sources: SourcesConfig },
  options: CreateSourcesOptions = {},
  definitions: readonly ReadableSource[] = READABLE_SOURCES,
): Source[] {
  const agents = ownAgents(definitions);
  return definitions.flatMap((d) => d.create({ env, settings: config.sources, agents, ...options }));
}
