/** Library entry for host apps: `import { attachChatSearch } from "recall/embed"`. */
export { attachChatSearch, type AttachOptions, type ChatSearch } from "./attach.js";
export type { ChatIndexFigures, ChatSearchIndexer } from "./indexer-service.js";
export type { ToolContext, ToolDefinition, ToolConsent } from "../tools/definition.js";
export { runTool } from "../tools/run.js";
