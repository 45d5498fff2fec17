import { Command } from "commander";
import { RecallError } from "../core/errors.js";
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
  // Commander's implicit help command cannot look itself up (`recall help help` was an unknown
  // command); a registered one replaces it and can show its own help.
  program
    .command("help [command]")
    .description("display help for command")
    .action((name: string | undefined) => {
      if (name === undefined) return program.outputHelp();
      const command = program.commands.find((c) => c.name() === name || c.aliases().includes(name));
      if (command === undefined)
        throw new RecallError("Usage", `unknown command '${name}' (see recall --help)`);
      command.outputHelp();
    });
  return program;
}
