/**
 * Projection: pure functions that turn one source record into the only text recall may index
 * (search mode) or return (read mode). No I/O; imports only core/.
 */
export { PROJECTION_VERSION } from "./version.js";
export type { ChatMessageInput, Projection, ProjectionMode } from "./types.js";
export { projectChatMessage } from "./dyad-message.js";
export { projectTranscriptTurn, projectTranscriptTurnBoth } from "./transcript-turn.js";
export {
  BASE64_PLACEHOLDER,
  READ_PROJECTION_HEAD_BYTES,
  READ_PROJECTION_MAX_BYTES,
  READ_PROJECTION_TAIL_BYTES,
  SEARCH_PROJECTION_HEAD_BYTES,
  SEARCH_PROJECTION_MAX_BYTES,
  SEARCH_PROJECTION_TAIL_BYTES,
  TRUNCATION_MARKER,
  boundText,
} from "./bounds.js";
export {
  ATTRIBUTE_MAX_CHARS,
  DROP_TAGS,
  KEEP_BODY_TAGS,
  METADATA_ATTRIBUTES,
  RECALL_CARD_TAGS,
  classifyTag,
  type TagClass,
} from "./dyad-tag-policy.js";
export { CLAUDE_COMMAND_TAGS, INJECTED_TAGS, commandLine } from "./injected-context.js";
export { CJK_CHAR, CJK_SEPARATOR, hasCjk, separateCjk } from "./cjk.js";
export { searchTextFromRead } from "./search-text.js";
export {
  TOOL_PREVIEW_HEAD_BYTES,
  TOOL_PREVIEW_TAIL_BYTES,
  TOOL_PREVIEW_TURN_BYTES,
  headTailPreview,
  writtenPreviewText,
} from "./tool-preview.js";
export {
  DEFAULT_REDACTION,
  DEFAULT_REDACTION_CONFIG,
  MARKER_PREFIX,
  compileRedaction,
  redactionMarker,
  type Redaction,
} from "./redact/index.js";
