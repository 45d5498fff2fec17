/**
 * The real-more fixtures (../shared/fixtures/real-more): each CLI's HOME copied into a temporary
 * HOME at run time (never into the repository), indexed by the registered sources, and searched
 * through the real search_history tool. MANIFEST.json names each session and what it holds.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { runTool } from "../../src/tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../../src/tools/search-history.js";
import { copyHome, createHarness, type Harness } from "../sources-harness.js";
import { REAL_MORE_FIXTURES } from "./shared.js";

export interface ManifestSession {
  cli: string;
  session_id: string;
  files: string[];
  cwd: string;
  user_prompts: string[];
  contains_decision_phrase: boolean;
  contains_big_output_marker: boolean;
  big_output_first_line_in_tool_result?: boolean;
}

export interface RealMoreManifest {
  decision_phrase: string;
  big_output_marker: string;
  big_output_first_line: string;
  sessions: ManifestSession[];
}

export const readManifest = (): RealMoreManifest =>
  JSON.parse(readFileSync(path.join(REAL_MORE_FIXTURES, "MANIFEST.json"), "utf8")) as RealMoreManifest;

export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out.sort();
}

/** A file's SHA-256: the CLI's files are checked byte-identical after indexing. */
export const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** A harness whose HOME holds a copy of one CLI's fixture home, indexed once; its files are checked unchanged. */
export async function indexRealMore(cli: string): Promise<Harness> {
  const h = await createHarness();
  copyHome(path.join(REAL_MORE_FIXTURES, cli, "home"), h.home);
  const before = new Map(filesUnder(h.home).map((f) => [f, sha(f)]));
  h.index();
  const after = filesUnder(h.home);
  expect(after).toEqual([...before.keys()]);
  for (const f of after) expect(sha(f), f).toBe(before.get(f));
  return h;
}

/** search_history as an agent calls it (the real tool: input validation, projection, output shape). */
export async function searchTool(
  h: Harness,
  args: Record<string, unknown>,
): Promise<SearchHistoryOutput["hits"]> {
  const out = JSON.parse(
    await runTool(createSearchHistoryTool(h.store.db, h.store.engine), { limit: 20, ...args }, {}),
  ) as SearchHistoryOutput;
  return out.hits.filter((hit) => hit.relaxed !== true);
}

/** The MANIFEST sessions of one CLI: the decision (resumed) session, the ADR one and the build one. */
export function sessionsOf(manifest: RealMoreManifest, cli: string) {
  const sessions = manifest.sessions.filter((s) => s.cli === cli);
  const decision = sessions.find((s) => s.user_prompts.length === 2)!;
  const adr = sessions.find((s) => s.user_prompts[0]?.includes("ADR"))!;
  const build = sessions.find((s) => s.contains_big_output_marker)!;
  return { decision, adr, build };
}
