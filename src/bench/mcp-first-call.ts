import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { distribution, fig, timeAsync, type Distribution, type Figure } from "./measure.js";
import { warmPageCache } from "./page-cache.js";
import { CLI, connectRecallMcp } from "./recall-mcp.js";

export const FIRST_CALL_CLASSES = ["rare", "identifier", "mixed", "common"] as const;
export type FirstCallClass = (typeof FIRST_CALL_CLASSES)[number];

export interface McpFirstCallFigures {
  available: boolean;
  note?: string;
  /**
   * Per query class: the first search_history call a fresh `recall mcp` answers, from the
   * client's request to its result, sent as soon as the server has answered initialize.
   */
  classes?: Partial<Record<FirstCallClass, Distribution>>;
  /** Spawn to initialized (not part of the figures above). */
  startup?: Distribution;
  errors?: Figure;
}

/**
 * The first query of every process: an agent starts `recall mcp` with its session, so its first
 * search_history meets a process with no statement, page or term list cached yet (the index file
 * is in the OS page cache, as it is on a machine in use: it is read through before each sample,
 * page-cache.ts). One server per sample, classes taken in turn so a slower stretch of the machine
 * falls on all of them alike. The server's HOME is an empty folder, so its broker finds no source
 * files to index meanwhile.
 */
export async function benchMcpFirstCall(
  recallHome: string,
  queries: Record<FirstCallClass, readonly string[]>,
  perClass: number,
): Promise<McpFirstCallFigures> {
  if (!existsSync(CLI))
    return { available: false, note: `unavailable: ${CLI} is missing (run npm run build)` };
  const empty = mkdtempSync(path.join(os.tmpdir(), "recall-bench-mcp-first-"));
  const times: Record<FirstCallClass, number[]> = { rare: [], identifier: [], mixed: [], common: [] };
  const startup: number[] = [];
  let errors = 0;
  try {
    for (let i = 0; i < perClass; i++) {
      for (const cls of FIRST_CALL_CLASSES) {
        const query = queries[cls][i % Math.max(1, queries[cls].length)];
        if (query === undefined) continue;
        warmPageCache(recallHome);
        const started = await timeAsync(() =>
          connectRecallMcp({ home: empty, recallHome, cwd: empty, name: "recall-bench-first-call" }),
        );
        const client: Client = started.value;
        startup.push(started.ms);
        try {
          const { ms, value } = await timeAsync(() =>
            client.callTool({ name: "search_history", arguments: { query, limit: 10 } }),
          );
          if (value.isError) errors++;
          else times[cls].push(ms);
        } finally {
          await client.close().catch(() => {});
        }
      }
    }
    const classes: Partial<Record<FirstCallClass, Distribution>> = {};
    for (const cls of FIRST_CALL_CLASSES) if (times[cls].length > 0) classes[cls] = distribution(times[cls]);
    return { available: true, classes, startup: distribution(startup), errors: fig(errors, "calls") };
  } catch (error) {
    return { available: false, note: `unavailable: ${(error as Error).message.split("\n")[0]}` };
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}
