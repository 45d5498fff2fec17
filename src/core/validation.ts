import type { z } from "zod";
import { RecallError } from "./errors.js";

/** "filters.since: must be …" — the field first, then the problem. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    "",
  );
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (where ? `${where}.${k}` : k)).join(", ");
    return `${keys}: unknown field`;
  }
  return `${where || "(input)"}: ${issue.message}`;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map(describeIssue).join("; ");
}

/** Parses tool or API input; a failure is a Validation error that names each field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new RecallError("Validation", describeIssues(parsed.error));
  return parsed.data;
}
