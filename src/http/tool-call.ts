import { auditCall } from "../app/audit.js";
import type { ToolContext, ToolDefinition } from "../tools/definition.js";
import { runTool, toolErrorOutput } from "../tools/run.js";

/**
 * Runs a tool for an HTTP request and keeps the surface's own content-free audit record
 * (counts and returned ids, never the query), as `recall mcp` does for its calls.
 */
export async function callTool(
  home: string,
  tool: ToolDefinition,
  rawArgs: unknown,
  ctx: ToolContext = {},
): Promise<string> {
  const started = performance.now();
  try {
    const output = await runTool(tool, rawArgs, ctx);
    auditCall(home, "http", tool.name, performance.now() - started, output, rawArgs);
    return output;
  } catch (error) {
    auditCall(home, "http", tool.name, performance.now() - started, JSON.stringify(toolErrorOutput(error)));
    throw error;
  }
}
