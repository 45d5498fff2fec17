import { RecallError } from "../core/errors.js";

/**
 * A tool's Validation error about input that a command built from its own flags and arguments is
 * the user's mistake on the command line: a usage error (exit 2) naming the flag, as commander's
 * own flag errors are. A NotFound about a flag's value (a hit not in this conversation) names the
 * flag too and keeps its exit code 3. Any other error, or one about a field no flag feeds, passes
 * unchanged.
 */
export function asFlagError(error: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof RecallError) || (error.kind !== "Validation" && error.kind !== "NotFound"))
    return error;
  const renamed: string[] = [];
  // describeIssues (core/validation.ts) joins "<field>: <problem>" issues with "; ".
  for (const issue of error.message.split("; ")) {
    const at = issue.indexOf(": ");
    const field = issue.slice(0, Math.max(0, at));
    if (at <= 0 || !Object.hasOwn(names, field)) return error;
    renamed.push(`${names[field]}${issue.slice(at)}`);
  }
  return new RecallError(error.kind === "NotFound" ? "NotFound" : "Usage", renamed.join("; "), {
    cause: error,
  });
}

/** A command action whose tool errors about a flag's value name the flag (asFlagError). */
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
