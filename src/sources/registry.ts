import { z } from "zod";
import { bridge } from "./bridge/definition.js";
import { claudeCode } from "./claude-code/definition.js";
import { cline } from "./cline/definition.js";
import { codex } from "./codex/definition.js";
import { continueCli } from "./continue/definition.js";
import { copilot } from "./copilot/definition.js";
import { agentNames, sourcesConfigSchema } from "./derive.js";
import { dyad } from "./dyad/definition.js";
import { gemini } from "./gemini-cli/definition.js";
import { kilo } from "./kilo/definition.js";
import { opencode } from "./opencode/definition.js";
import { qwen } from "./qwen-code/definition.js";
import { pi } from "./pi/definition.js";

/**
 * Every source recall reads, in the order they are read. A new source is one folder under
 * sources/ exporting a definition (docs/adding-a-source.md), one line here and its reader in
 * readers.ts. What it takes to read one is kept out of this list (definition.ts says why).
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
