import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { distribution, fig, timeAsync, type Distribution, type Figure } from "./measure.js";
import { CLI, connectRecallMcp } from "./recall-mcp.js";

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
  let client: Client | undefined;
  try {
    const c = await connectRecallMcp({ home: empty, recallHome, cwd: empty, name: "recall-bench" });
    client = c;
    const pass = async () => {
      const times: number[] = [];
      let errors = 0;
      for (const q of queries) {
        const { ms, value } = await timeAsync(() =>
          c.callTool({ name: "search_history", arguments: { query: q, limit: 10 } }),
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
    await client?.close().catch(() => {});
    rmSync(empty, { recursive: true, force: true });
  }
}
