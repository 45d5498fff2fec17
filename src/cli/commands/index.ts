import { commandName } from "../command-name.js";
import type { CommandModule } from "../program.js";

/**
 * Implemented commands, loaded lazily: `recall search` imports only what search needs, so a
 * cold process starts fast. docs/commands.md describes each one.
 */
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  start: async () => (await import("./start.js")).startCommand,
  index: async () => (await import("./index-command.js")).indexCommand,
  search: async () => (await import("./search.js")).searchCommand,
  conversation: async () => (await import("./conversation.js")).conversationCommand,
  export: async () => (await import("./export.js")).exportCommand,
  forget: async () => (await import("./forget.js")).forgetCommand,
  status: async () => (await import("./status.js")).statusCommand,
  reindex: async () => (await import("./reindex.js")).reindexCommand,
  demo: async () => (await import("./demo.js")).demoCommand,
  tool: async () => (await import("./tool.js")).toolCommand,
  split: async () => (await import("./split.js")).splitCommand,
  mcp: async () => (await import("./mcp.js")).mcpCommand,
  bridge: async () => (await import("./bridge.js")).bridgeCommand,
  serve: async () => (await import("./serve.js")).serveCommand,
  team: async () => (await import("./team.js")).teamCommand,
};

/** The command modules a given argv needs: just the named one, or all of them for help and errors. */
export async function loadCommands(argv: readonly string[]): Promise<CommandModule[]> {
  const name = commandName(argv);
  const loader = name === undefined ? undefined : COMMAND_LOADERS[name];
  if (loader) return [await loader()];
  return Promise.all(Object.values(COMMAND_LOADERS).map((load) => load()));
}
