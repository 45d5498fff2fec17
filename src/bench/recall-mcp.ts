import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI the bench's MCP clients start (npm run build makes it). */
export const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/**
 * A real `recall mcp` over stdio with the SDK client an agent uses, its HOME (and XDG folders
 * under it) and RECALL_HOME given, nothing else of the bench's environment but PATH.
 */
export async function connectRecallMcp(options: {
  home: string;
  recallHome: string;
  cwd: string;
  name: string;
}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: options.home,
      XDG_DATA_HOME: path.join(options.home, ".local", "share"),
      XDG_CONFIG_HOME: path.join(options.home, ".config"),
      RECALL_HOME: options.recallHome,
    },
    stderr: "ignore",
  });
  const client = new Client({ name: options.name, version: "1.0.0" });
  await client.connect(transport);
  return client;
}
