import type { ProcessResult } from "../process.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A short, content-free description of a failed run: exit status only. Provider stderr and
 * stdout can echo the prompt, so neither is copied into answer.error.
 */
export function describeExit(result: ProcessResult, what: string): string {
  if (result.spawnError) return `could not start (${result.spawnError})`;
  const status = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  return `${what} (${status})`;
}
