/**
 * The real-more fixtures (../shared/fixtures/real-more): sessions the real binaries of seven more
 * coding-agent CLIs wrote against a scripted model. Each CLI's HOME is copied into a temporary one
 * at run time (never into the repository), indexed by the registered sources, and searched through
 * the real search_history tool. MANIFEST.json names each session and what it holds.
 */
import { createHash } from "node:crypto";
import { chmodSync, cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { runTool } from "../../src/tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../../src/tools/search-history.js";
import { createHarness, type Harness } from "../sources-harness.js";
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
  title?: string;
}

export interface RealMoreManifest {
  decision_phrase: string;
  big_output_marker: string;
  big_output_first_line: string;
  sessions: ManifestSession[];
}

export const readManifest = (): RealMoreManifest =>
  JSON.parse(readFileSync(path.join(REAL_MORE_FIXTURES, "MANIFEST.json"), "utf8")) as RealMoreManifest;

/** The MANIFEST sessions of one CLI: the decision (resumed) session, the ADR one and the build one. */
export function sessionsOf(manifest: RealMoreManifest, cli: string) {
  const sessions = manifest.sessions.filter((s) => s.cli === cli);
  const decision = sessions.find((s) => s.user_prompts.length === 2)!;
  const adr = sessions.find((s) => s.user_prompts[0]?.includes("ADR"))!;
  const build = sessions.find((s) => s.contains_big_output_marker)!;
  return { sessions, decision, adr, build };
}

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

/** Every file below a folder with a hash of its bytes: a source must leave them as they were. */
export function fingerprint(dir: string): Record<string, string> {
  return Object.fromEntries(filesUnder(dir).map((file) => [path.relative(dir, file), sha(file)]));
}

/** Copies one CLI's HOME (`<cli>/home`) into `to`, writable as a CLI's own files are. */
export function copyRealHome(cli: string, to: string): void {
  cpSync(path.join(REAL_MORE_FIXTURES, cli, "home"), to, { recursive: true });
  const writable = (p: string) => {
    const s = statSync(p);
    chmodSync(p, s.mode | 0o200);
    if (s.isDirectory()) for (const n of readdirSync(p)) writable(path.join(p, n));
  };
  writable(to);
}

/** A harness over one CLI's real HOME, indexed; the CLI's files checked unchanged after. */
export async function indexRealHome(cli: string): Promise<Harness> {
  const h = await createHarness();
  copyRealHome(cli, h.home);
  const before = new Map(filesUnder(h.home).map((f) => [f, sha(f)]));
  h.index();
  // A -shm beside a WAL database is the one accepted side effect of reading it.
  const after = filesUnder(h.home).filter((f) => !f.endsWith("-shm"));
  expect(after).toEqual([...before.keys()].filter((f) => !f.endsWith("-shm")));
  for (const f of after) expect(sha(f), f).toBe(before.get(f));
  return h;
}

/** search_history, the MCP tool itself (input validation, projection, output shape), over a harness's index. */
export async function searchTool(
  h: Harness,
  query: string,
  filters: Record<string, unknown> = {},
): Promise<SearchHistoryOutput> {
  return JSON.parse(
    await runTool(createSearchHistoryTool(h.store.db, h.store.engine), { query, limit: 20, filters }, {}),
  ) as SearchHistoryOutput;
}

/** The hits of the strict passes (every word found), relaxed ones left out. */
export async function strictHits(
  h: Harness,
  query: string,
  filters: Record<string, unknown> = {},
): Promise<SearchHistoryOutput["hits"]> {
  return (await searchTool(h, query, filters)).hits.filter((hit) => hit.relaxed !== true);
}

/**
 * What issue #34 asks of every agent, from its MANIFEST entries: the decision phrase in the
 * decision session, `0042_enable_rls.sql` in the resumed one (the same session), the ADR session,
 * and the quokka marker in the build session.
 */
export async function expectManifestFound(h: Harness, cli: string, agent: string): Promise<void> {
  const manifest = readManifest();
  const { sessions, decision: resumed, build } = sessionsOf(manifest, cli);
  expect(sessions.length).toBe(3);
  const adr = sessions.find((s) => s.user_prompts.some((p) => p.includes("Write an ADR")))!;
  const sessionsIn = (out: SearchHistoryOutput) => new Set(out.hits.map((x) => x.session));

  const decision = await searchTool(h, `"${manifest.decision_phrase}"`, { agent });
  expect(sessionsIn(decision)).toContain(resumed.session_id);
  expect(decision.hits.every((x) => x.agent === agent)).toBe(true);
  const rls = await searchTool(h, "0042_enable_rls.sql", { agent });
  expect([...sessionsIn(rls)]).toEqual([resumed.session_id]);
  const adrHits = await searchTool(h, "ADR architecture decision record auth store", { agent });
  expect(sessionsIn(adrHits)).toContain(adr.session_id);
  expect(adrHits.hits.find((x) => x.session === adr.session_id)?.project).toBe(adr.cwd);
  const quokka = await searchTool(h, manifest.big_output_marker, { agent });
  expect(sessionsIn(quokka)).toContain(build.session_id);
  if (build.big_output_first_line_in_tool_result) {
    // The CLI kept the output's first line: it is found as tool output.
    const first = await searchTool(h, `"${manifest.big_output_first_line}"`, { agent });
    expect(first.hits.some((x) => x.session === build.session_id && x.role === "tool")).toBe(true);
  }
  // `other` keeps meaning every agent outside claude, codex and opencode.
  const other = await searchTool(h, "0042_enable_rls.sql", { agent: "other" });
  expect([...sessionsIn(other)]).toEqual([resumed.session_id]);
}

/**
 * For a CLI that records its session's folder and keeps a big output's first line in the logged
 * result: the decision's answer is the assistant's, in the recorded project, and exactly one tool
 * preview of the build session holds the marker.
 */
export async function expectAnswerAndPreview(h: Harness, cli: string, agent: string): Promise<void> {
  const manifest = readManifest();
  const { decision, build } = sessionsOf(manifest, cli);
  const phrase = await strictHits(h, manifest.decision_phrase, { agent });
  const answer = phrase.find((x) => x.conversation === `${agent}:${decision.session_id}`)!;
  expect(answer).toMatchObject({ agent, session: decision.session_id, role: "assistant" });
  // The recorded folder does not exist here, so it stays as written.
  expect(answer.project).toBe(decision.cwd);
  expect(build.big_output_first_line_in_tool_result).toBe(true);
  const marker = await strictHits(h, "quokka_retry_budget exhausted shard");
  const tool = marker.filter((x) => x.conversation === `${agent}:${build.session_id}` && x.role === "tool");
  expect(tool.length).toBe(1);
}
