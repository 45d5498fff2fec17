import type { z } from "zod";
import { HttpError } from "./respond.js";

/**
 * Query parameters of one API route: each known name at most once; an unknown or repeated one
 * is a 400 naming it (a typo must not silently widen a search).
 */
export function singleParams<K extends string>(
  query: URLSearchParams,
  allowed: readonly K[],
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [name, value] of query) {
    if (!(allowed as readonly string[]).includes(name))
      throw new HttpError(400, `${name}: unknown parameter`);
    if (out[name as K] !== undefined) throw new HttpError(400, `${name}: must occur at most once`);
    out[name as K] = value;
  }
  return out;
}

/**
 * Text to the JSON value a tool schema expects, converting only what is unambiguous (a decimal
 * integer, the words true/false); anything else is passed as the text, and the tool's own zod
 * schema rejects it with its own message, so no bound is restated here.
 */
export function integerText(value: string): number | string {
  return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
}

export function booleanText(value: string): boolean | string {
  return value === "true" ? true : value === "false" ? false : value;
}

/** A zod failure as one 400 message, naming query parameters rather than tool input paths. */
export function paramError(error: z.ZodError, names: (path: readonly PropertyKey[]) => string): HttpError {
  const message = error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") return `${issue.keys.join(", ")}: unknown parameter`;
      return `${names(issue.path)}: ${issue.message}`;
    })
    .join("; ");
  return new HttpError(400, message);
}
