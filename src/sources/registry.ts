import { z } from "zod";
import type { Env } from "../platform/paths.js";
import { bridge } from "./bridge/definition.js";
import { claudeCode } from "./claude-code/definition.js";
import { cline } from "./cline/definition.js";
import { codex } from "./codex/definition.js";
import { continueCli } from "./continue/definition.js";
import { copilot } from "./copilot/definition.js";
import type { SourceDefinition } from "./definition.js";
import { agentNames, ownAgents, sourcesConfigSchema } from "./derive.js";
import { dyad } from "./dyad/definition.js";
import { gemini } from "./gemini-cli/definition.js";
import { kilo } from "./kilo/definition.js";
import { opencode } from "./opencode/definition.js";
import { qwen } from "./qwen-code/definition.js";
import { pi } from "./pi/definition.js";
import type { Source } from "./types.js";

/**
 * Every source recall reads, in the order they are read. A new source is one folder under
 * sources/ exporting a definition (docs/adding-a-source.md) plus one line here.
 */
export const SOURCES = [
  claudeCode,
  codex,
  opencode,
  gemini,
  qwen,
  copilot,
  pi,
  cline,
  kilo,
  continueCli,
  dyad,
  bridge,
] as const;

/** The agent filter of search_history: claude, codex, opencode, the agents added after them, other. */
export const AgentName = z.enum(agentNames(SOURCES));
export type AgentName = z.infer<typeof AgentName>;

/** config.json's `sources`: each registered source's switches and settings. */
export type SourcesConfig = z.infer<ReturnType<typeof sourcesConfigSchema<typeof SOURCES>>>;

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
  definitions: readonly SourceDefinition[] = SOURCES,
): Source[] {
  const agents = ownAgents(definitions);
  return definitions.flatMap((d) => d.create({ env, settings: config.sources, agents, ...options }));
}
