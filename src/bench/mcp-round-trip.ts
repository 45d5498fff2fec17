import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { distribution, fig, timeAsync, type Distribution, type Figure } from "./measure.js";

export interface McpRoundTripFigures {
  available: boolean;
  note?: string;
  /**
   * A search_history tools/call from the client's request to its result, once the server has
   * seen the query before (warm, as the in-process search figures are measured).
   */
  roundTrip?: Distribution;
  /**
   * The same calls the first time the server sees them: includes building the impact lists
   * of common terms the process has not used yet (term-cache.ts), which a fresh server pays.
   */
  firstCall?: Distribution;
  errors?: Figure;
}

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/**
 * search_history through a real `recall mcp` process over stdio (the SDK client an agent uses):
 * protocol framing, validation, the tool and the audit line included. The server's HOME is an
 * empty folder, so its broker finds no new source files to index while it is measured.
 */
export async function benchMcpRoundTrip(
  recallHome: string,
  queries: readonly string[],
): Promise<McpRoundTripFigures> {
  if (!existsSync(CLI))
    return { available: false, note: `unavailable: ${CLI} is missing (run npm run build)` };
  const empty = mkdtempSync(path.join(os.tmpdir(), "recall-bench-mcp-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp"],
    cwd: empty,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: empty,
      XDG_DATA_HOME: path.join(empty, "data"),
      XDG_CONFIG_HOME: path.join(empty, "config"),
      RECALL_HOME: recallHome,
    },
    stderr: "ignore",
  });
  const client = new Client({ name: "recall-bench", version: "1.0.0" });
  try {
    await client.connect(transport);
    const pass = async () => {
      const times: number[] = [];
      let errors = 0;
      for (const q of queries) {
        const { ms, value } = await timeAsync(() =>
          client.callTool({ name: "search_history", arguments: { query: q, limit: 10 } }),
        );
        if (value.isError) errors++;
        else times.push(ms);
      }
      return { times, errors };
    };
    const first = await pass();
    const warm = await pass();
    return {
      available: true,
      roundTrip: distribution(warm.times),
      firstCall: distribution(first.times),
      errors: fig(first.errors + warm.errors, "calls"),
    };
  } catch (error) {
    return { available: false, note: `unavailable: ${(error as Error).message.split("\n")[0]}` };
  } finally {
    await client.close().catch(() => {});
    rmSync(empty, { recursive: true, force: true });
  }
}
