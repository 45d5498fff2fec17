import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI } from "./cli.js";

export interface McpProcess {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr: () => string;
}

/**
 * A real `recall mcp` process over stdio with the SDK client an agent uses. The test's own
 * RECALL_SESSION_ID is dropped unless `env` sets one, so no search excludes a session by accident.
 */
export async function connectMcp(
  env: Record<string, string>,
  options: { name: string; cwd?: string; /** The CLI file to run (default the built bin). */ entry?: string },
): Promise<McpProcess> {
  const merged = { ...(process.env as Record<string, string>) };
  delete merged.RECALL_SESSION_ID;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.entry ?? CLI, "mcp"],
    env: { ...merged, ...env },
    stderr: "pipe",
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: options.name, version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
