/** The registered sources and what derives from them, for the surfaces (cli, http). */
export { SOURCES, AgentName } from "../sources/registry.js";
export type { SourceDefinition } from "../sources/definition.js";
export {
  agentChoices,
  agentHelp,
  conversationIds,
  hasAgentHistory,
  lookedIn,
  sourceLabel,
} from "../sources/derive.js";
