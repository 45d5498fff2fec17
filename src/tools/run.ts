import { isRecallError, RecallError } from "../core/errors.js";
import { parseInput } from "../core/validation.js";
import type { ToolContext, ToolDefinition } from "./definition.js";

/** A tool error as every surface prints it. */
export interface ToolErrorOutput {
  error: { kind: string; message: string };
}

/**
 * Validates raw arguments against the tool's schema and runs it. Errors the caller can act on
 * come back as RecallError (Validation names the field); anything else is Internal.
 */
export async function runTool(tool: ToolDefinition, rawArgs: unknown, ctx: ToolContext): Promise<string> {
  const args = parseInput(tool.inputSchema, rawArgs);
  try {
    return await tool.execute(args, ctx);
  } catch (error) {
    if (isRecallError(error)) throw error;
    throw new RecallError("Internal", `${tool.name} failed`, { cause: error });
  }
}

export function toolErrorOutput(error: unknown): ToolErrorOutput {
  if (isRecallError(error)) return { error: { kind: error.kind, message: error.message } };
  return { error: { kind: "Internal", message: "internal error" } };
}
