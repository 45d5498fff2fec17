/** The recall CLI; main.ts starts it, from the bundle when there is a current one (see there). */
import { CommanderError } from "commander";
import { readFileSync } from "node:fs";
import path from "node:path";
import { recallHome } from "../app/recall.js";
import { asDamagedIndex } from "../app/index-health.js";
import { isRecallError } from "../core/errors.js";
import { createContext, type CliContext } from "./context.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { printError } from "./output.js";
import { buildProgram } from "./program.js";
import { loadCommands } from "./commands/index.js";

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Output piped into a reader that stopped early (`recall search … | head`): not a failure. */
const isBrokenPipe = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === "EPIPE";

/** Maps any failure to one stderr line and a meaningful exit code; never a stack trace for a user mistake. */
function fail(error: unknown): number {
  if (isBrokenPipe(error)) return EXIT.ok;
  if (error instanceof CommanderError) {
    if (
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      error.exitCode === 0
    ) {
      return EXIT.ok;
    }
    printError(error.message.replace(/^error:\s*/, ""));
    return EXIT.usage;
  }
  // A damaged index met after it opened (a search, the indexer, status --check): said as on
  // opening (store/history-store.ts HISTORY_FILE, not imported: it would load SQLite for --help).
  const damaged = asDamagedIndex(error, path.join(recallHome(), "history.db"));
  if (damaged) {
    printError(damaged.message);
    return exitCodeFor(damaged.kind);
  }
  if (isRecallError(error)) {
    printError(error.message);
    return exitCodeFor(error.kind);
  }
  // An internal fault: still one line by default; RECALL_DEBUG=1 shows the stack for developers.
  printError(`internal error: ${(error as Error)?.message ?? String(error)}`);
  if (process.env.RECALL_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ""}\n`);
  return EXIT.failure;
}

async function main(given: string[]): Promise<number> {
  // A bare `recall` shows what it can do, as `recall --help` does (commander would print its help
  // as an error, which the one-line error output swallows).
  const argv = given.length > 2 ? given : [...given, "--help"];
  let ctx: CliContext | undefined;
  const lazyContext = () => (ctx ??= createContext());
  const program = buildProgram(lazyContext, await loadCommands(argv), packageVersion());
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (error) {
    return fail(error);
  }
}

// Asynchronous stdout writes report a closed pipe as an 'error' event, not to the writer.
process.stdout.on("error", (error) => process.exit(isBrokenPipe(error) ? EXIT.ok : fail(error)));
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = fail(error);
  },
);
