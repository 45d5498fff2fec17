import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { PassThrough } from "node:stream";
import { BoundedStdioTransport } from "./line-transport.js";

/** The longest one rehearsed call is waited for. */
const CALL_DEADLINE_MS = 5_000;

/** A tool call a server answers before its client's first request (its answer is dropped). */
export interface RehearsalCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A line the server wrote that is not JSON answers nothing (and must not end the process). */
function responseId(line: string): unknown {
  try {
    return (JSON.parse(line) as { id?: unknown } | null)?.id;
  } catch {
    return undefined;
  }
}

/**
 * Sends `calls` to `server` as a client would, one at a time over in-process streams through the
 * same line transport stdio uses, then disconnects it so it can serve stdio. Why: in a fresh
 * `recall mcp` the first request ran its path uncompiled (the line reader, the SDK's request and
 * result schemas, the tool): on the 1M Zipf index a rare word's first call took 15–21 ms against
 * 2–3 ms for the same call again, 5 ms of it outside the tool. Rehearsed, that path is warm.
 */
export async function rehearse(
  server: Server,
  calls: readonly RehearsalCall[],
  deadlineMs = CALL_DEADLINE_MS,
): Promise<void> {
  const input = new PassThrough();
  const output = new PassThrough();
  const waiting = new Map<number, () => void>();
  let pending = "";
  output.on("data", (chunk: Buffer) => {
    const lines = (pending + chunk.toString("utf8")).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const id = responseId(line);
      if (typeof id === "number") waiting.get(id)?.();
    }
  });
  let next = 0;
  // A call left unanswered past the deadline is not waited for: the client comes first.
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<void>((resolve) => {
      const id = ++next;
      const timer = setTimeout(resolve, deadlineMs);
      waiting.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await server.connect(new BoundedStdioTransport({ input, output, log: () => {} }));
  try {
    await request("initialize", {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "recall-rehearsal", version: "1" },
    });
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    for (const call of calls) await request("tools/call", { name: call.name, arguments: call.arguments });
  } finally {
    await server.close();
  }
}
