import { RecallError } from "../core/errors.js";

/**
 * A tool's Validation error about input that a command built from its own flags and arguments is
 * the user's mistake on the command line: a usage error (exit 2) naming the flag, as commander's
 * own flag errors are. Any other error (a conversation not found, a field no flag feeds) passes
 * unchanged, and keeps the tool's exit code 3.
 */
export function asFlagError(error: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof RecallError) || error.kind !== "Validation") return error;
  const renamed: string[] = [];
  // describeIssues (core/validation.ts) joins "<field>: <problem>" issues with "; ".
  for (const issue of error.message.split("; ")) {
    const at = issue.indexOf(": ");
    const field = issue.slice(0, Math.max(0, at));
    if (at <= 0 || !Object.hasOwn(names, field)) return error;
    renamed.push(`${names[field]}${issue.slice(at)}`);
  }
  return new RecallError("Usage", renamed.join("; "), { cause: error });
}

/** A command action whose tool Validation errors name the command's flags (asFlagError). */
export function namingFlags<A extends unknown[]>(
  names: Readonly<Record<string, string>>,
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      throw asFlagError(error, names);
    }
  };
}
