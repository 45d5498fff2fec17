/** Library entry for host apps: `import { attachChatSearch } from "recall/embed"`. */
export { attachChatSearch, type AttachOptions, type ChatSearch } from "../app/attach-chat-search.js";
export type { ChatIndexFigures, ChatSearchIndexer } from "../app/embedded-indexer.js";
export type { SplitReport } from "../app/history-split.js";
export type { SplitAttachOptions } from "../app/split-routing.js";
export { splitSwitches, type SplitSwitches } from "../app/split-switches.js";
export type { ToolContext, ToolDefinition, ToolConsent } from "../tools/definition.js";
export { runTool } from "../tools/run.js";
