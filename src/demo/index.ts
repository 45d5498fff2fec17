/**
 * The deterministic demo corpus generator (`recall demo`, `npm start` without agent history, tests,
 * benchmarks): Claude Code, Codex, opencode and Dyad data in their real on-disk formats under a
 * fake HOME, with planted needles and canaries reported in a manifest.
 */
export { generateDemoCorpus, resolveSources, withShowcase, type ResolvedSpec } from "./generate.js";
export {
  generateLargeClaudeTranscript,
  type LargeTranscriptOptions,
  type LargeTranscriptResult,
} from "./large-transcript.js";
export {
  DEMO_SOURCES,
  MANIFEST_FILE,
  demoAgentPaths,
  NEWER_AGENTS,
  demoPaths,
  newerAgentPaths,
  isIncompleteManifest,
  isManifestOf,
  type DemoManifest,
  type DemoOptions,
  type DemoSource,
  type Needle,
  type SourceCounts,
  type SourceOverride,
} from "./manifest.js";
export { CANARY_KINDS, CANARY_PATTERN, type CanaryKind } from "./canaries.js";
export { DEFAULT_BASE_TIME, DEMO_HOME, claudeSlug } from "./plan.js";
export { DYAD_COLUMNS, DYAD_DDL } from "./dyad-schema.js";
export { escapeXmlAttr, escapeXmlContent } from "./dyad.js";
export { ZSTD_MAGIC, ZstdRawFileSink, encodeZstdRawFrame } from "./zstd-frame.js";
export { Rng } from "./rng.js";
export {
  corpusProse,
  dumpSqlite,
  listFiles,
  readCorpusText,
  readJsonl,
  type ProseItem,
} from "./corpus-audit.js";
