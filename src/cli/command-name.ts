/**
 * The command an argv names: its first word that is not an option (`recall --json search …` is a
 * search). The bin reads it before anything loads (heap settings, main.ts); commands/index.ts to
 * load that command alone.
 */
export const commandName = (argv: readonly string[]): string | undefined =>
  argv.slice(2).find((arg) => !arg.startsWith("-"));
