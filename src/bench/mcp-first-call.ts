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
  /**
   * The same, classes in turn, each sent one of LATER_MS after initialize: what an agent meets
   * that searches a moment into its session, while the server's broker loads what the index
   * knows and starts its idle work (at 1M messages a search a second in waited 0.4–0.6 s for one
   * step of it).
   */
  later?: Distribution;
  /** Spawn to initialized (not part of the figures above). */
  startup?: Distribution;
  errors?: Figure;
}

/** How long after initialize the `later` samples are sent, in turn. */
export const LATER_MS = [500, 1_000, 1_500, 2_000, 2_500, 3_000] as const;
export const LATER_SPAN = `${Math.min(...LATER_MS) / 1000}–${Math.max(...LATER_MS) / 1000} s`;

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
  laterSamples = 0,
): Promise<McpFirstCallFigures> {
  if (!existsSync(CLI))
    return { available: false, note: `unavailable: ${CLI} is missing (run npm run build)` };
  const empty = mkdtempSync(path.join(os.tmpdir(), "recall-bench-mcp-first-"));
  const times: Record<FirstCallClass, number[]> = { rare: [], identifier: [], mixed: [], common: [] };
  const later: number[] = [];
  const startup: number[] = [];
  let errors = 0;
  /** One fresh server's first call of `query`, `waitMs` after it answered initialize. */
  const sample = async (query: string, waitMs: number): Promise<number | null> => {
    warmPageCache(recallHome);
    const started = await timeAsync(() =>
      connectRecallMcp({ home: empty, recallHome, cwd: empty, name: "recall-bench-first-call" }),
    );
    const client: Client = started.value;
    startup.push(started.ms);
    try {
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      const { ms, value } = await timeAsync(() =>
        client.callTool({ name: "search_history", arguments: { query, limit: 10 } }),
      );
      if (value.isError) errors++;
      return value.isError ? null : ms;
    } finally {
      await client.close().catch(() => {});
    }
  };
  try {
    for (let i = 0; i < perClass; i++) {
      for (const cls of FIRST_CALL_CLASSES) {
        const query = queries[cls][i % Math.max(1, queries[cls].length)];
        if (query === undefined) continue;
        const ms = await sample(query, 0);
        if (ms !== null) times[cls].push(ms);
      }
    }
    for (let i = 0; i < laterSamples; i++) {
      const list = queries[FIRST_CALL_CLASSES[i % FIRST_CALL_CLASSES.length]!];
      // From the lists' other end: queries the samples above did not ask.
      const query = list[list.length - 1 - Math.floor(i / FIRST_CALL_CLASSES.length)];
      if (query === undefined) continue;
      const ms = await sample(query, LATER_MS[i % LATER_MS.length]!);
      if (ms !== null) later.push(ms);
    }
    const classes: Partial<Record<FirstCallClass, Distribution>> = {};
    for (const cls of FIRST_CALL_CLASSES) if (times[cls].length > 0) classes[cls] = distribution(times[cls]);
    return {
      available: true,
      classes,
      ...(later.length > 0 ? { later: distribution(later) } : {}),
      startup: distribution(startup),
      errors: fig(errors, "calls"),
    };
  } catch (error) {
    return { available: false, note: `unavailable: ${(error as Error).message.split("\n")[0]}` };
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}
