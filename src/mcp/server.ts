import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ToolContext, ToolDefinition } from "../tools/definition.js";
import { runTool, toolErrorOutput } from "../tools/run.js";
import { asDamagedIndex } from "../app/index-health.js";
import { BoundedStdioTransport } from "./line-transport.js";
import { rehearse, type RehearsalCall } from "./rehearsal.js";

export interface McpCallRecord {
  tool: string;
  ok: boolean;
  durationMs: number;
  output: string;
  /** The call's arguments, for the audit's ids only (never stored whole). */
  args: unknown;
}

export interface McpServerOptions {
  name: string;
  version: string;
  tools: ToolDefinition[];
  context: ToolContext;
  /** Called after every tool call (the surface's own content-free audit hook). */
  onCall?: (record: McpCallRecord) => void;
  /** Content-free lines for stderr (a refused oversized request). */
  log?: (line: string) => void;
  /** The index file, named when a call finds it damaged (store/damage.ts). */
  indexFile?: string;
}

export interface StdioServerOptions extends McpServerOptions {
  /** Calls answered before stdin is read (rehearsal.ts); neither audited nor logged. */
  rehearsal?: readonly RehearsalCall[];
  /** Called once the rehearsal is over, before the first request is read. */
  onRehearsed?: (ms: number) => void;
}

/** The JSON Schema an MCP client sees: the input side of the tool's zod schema. */
export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

/**
 * An MCP server over any set of recall tools. Validation is recall's own (a Validation error
 * names the field); a tool error comes back as an isError result holding {"error":{kind,message}}.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} } },
  );
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: inputJsonSchema(t) as { type: "object"; [k: string]: unknown },
      annotations: { readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    const started = performance.now();
    if (!tool) {
      const output = JSON.stringify({
        error: { kind: "NotFound", message: `unknown tool ${request.params.name}` },
      });
      return { content: [{ type: "text" as const, text: output }], isError: true };
    }
    // A client may name its calling session per request (_meta.sessionId); else RECALL_SESSION_ID.
    const metaSession = request.params._meta?.sessionId;
    const context = {
      ...options.context,
      ...(typeof metaSession === "string" && metaSession.length > 0 && metaSession.length <= 500
        ? { session: metaSession }
        : {}),
      // A client's notifications/cancelled (or a lost connection) stops a model run at once.
      signal: extra.signal,
    };
    try {
      const output = await runTool(tool, request.params.arguments ?? {}, context);
      const args = request.params.arguments;
      options.onCall?.({ tool: tool.name, ok: true, durationMs: performance.now() - started, output, args });
      return { content: [{ type: "text" as const, text: output }] };
    } catch (error) {
      const damaged = options.indexFile ? asDamagedIndex(error, options.indexFile) : null;
      const output = JSON.stringify(toolErrorOutput(damaged ?? error));
      const args = request.params.arguments;
      options.onCall?.({ tool: tool.name, ok: false, durationMs: performance.now() - started, output, args });
      return { content: [{ type: "text" as const, text: output }], isError: true };
    }
  });
  return server;
}

/**
 * Serves over stdio: stdout carries protocol messages only; logs go to stderr. The transport
 * reads bounded lines (line-transport.ts): an oversized request is refused, not fatal. The
 * rehearsal, if any, is answered first, by the same server.
 */
export async function serveStdio(options: StdioServerOptions): Promise<void> {
  const { rehearsal = [], onCall } = options;
  let rehearsing = rehearsal.length > 0;
  const server = createMcpServer({
    ...options,
    ...(onCall
      ? {
          onCall: (record: McpCallRecord) => {
            if (!rehearsing) onCall(record);
          },
        }
      : {}),
  });
  if (rehearsing) {
    const started = performance.now();
    await rehearse(server, rehearsal);
    rehearsing = false;
    options.onRehearsed?.(performance.now() - started);
  }
  const transport = new BoundedStdioTransport(options.log ? { log: options.log } : {});
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  process.stdin.on("end", () => void server.close());
  await closed;
}
