import { Command } from "commander";
import { notYetImplemented } from "./not-yet.js";
import type { CliContext } from "./context.js";

export interface CommandModule {
  register(program: Command, ctx: () => CliContext): void;
}

/** Every command of DESIGN.md's list; later issues replace the placeholders one by one. */
const PLACEHOLDERS: { name: string; args?: string; summary: string; json?: boolean }[] = [
  { name: "conversation", args: "<id>", summary: "read a retained conversation page by page", json: true },
  { name: "status", summary: "index coverage per source, backlog and latency figures", json: true },
  { name: "reindex", summary: "rebuild derived documents from sources and retained records" },
  {
    name: "forget",
    summary: "delete history on purpose (by session, project or time range) and leave a tombstone",
  },
  {
    name: "export",
    args: "<conversation>",
    summary: "write a conversation's retained raw bytes back verbatim",
  },
  {
    name: "mcp",
    summary: "run the MCP stdio server (search_history, get_conversation, search_chats, read_chat)",
  },
  {
    name: "tool",
    args: "<name>",
    summary: "run one tool against a host chat database, as the host would",
    json: true,
  },
];

export function buildProgram(ctx: () => CliContext, modules: CommandModule[], version: string): Command {
  const program = new Command();
  program
    .name("recall")
    .description("Local-first search over AI-agent conversation history")
    .version(version, "-V, --version")
    .showSuggestionAfterError(false)
    // Errors are reported once, as one line, by main(); set before commands so they inherit it.
    .configureOutput({ writeErr: () => {}, outputError: () => {} })
    .exitOverride();
  for (const module of modules) module.register(program, ctx);
  for (const placeholder of PLACEHOLDERS) {
    if (program.commands.some((c) => c.name() === placeholder.name)) continue;
    const command = program
      .command(placeholder.name)
      .description(`${placeholder.summary} (not implemented yet)`);
    if (placeholder.args) command.argument(placeholder.args);
    if (placeholder.json) command.option("--json", "print JSON");
    command.allowUnknownOption().action(() => notYetImplemented(placeholder.name));
  }
  return program;
}
