import { Command } from "commander";
import type { CliContext } from "./context.js";

export interface CommandModule {
  register(program: Command, ctx: () => CliContext): void;
}

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
  return program;
}
