import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { demoAgentPaths, generateDemoCorpus, type DemoManifest } from "../demo/index.js";
import { generateZipfCorpus } from "../demo/zipf-corpus.js";
import { demoQueryCorpus, type QueryCorpus } from "./queries.js";

/** Benchmark scales: source messages per corpus. `tiny` exists for the smoke test. */
export const SCALES = { tiny: 2_000, "10k": 10_000, "100k": 100_000, "1m": 1_000_000 } as const;
export type ScaleName = keyof typeof SCALES;

/** A scratch folder under the OS temp dir; everything the benchmark writes goes here. */
export function scratchDir(label: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `recall-bench-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Total bytes of the files under `root` (0 when it does not exist). */
export function treeBytes(root: string): number {
  if (!existsSync(root)) return 0;
  const st = statSync(root);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(root)) total += treeBytes(path.join(root, name));
  return total;
}

/**
 * Transcript corpora the history figures are measured on: the demo generator's three CLIs, and
 * Claude Code transcripts whose words follow a Zipf law over a 250k-type vocabulary with a long
 * tail (src/demo/zipf-corpus.ts), as real chat text does.
 */
export const CORPORA = ["demo", "zipf"] as const;
export type CorpusName = (typeof CORPORA)[number];

export interface HistoryCorpus {
  name: CorpusName;
  /** The fake HOME the CLIs' files live under. */
  home: string;
  queries: QueryCorpus;
  /** Conversation records the generator wrote (its own unit per source). */
  messages: number;
  sourceBytes: number;
  /** Folders a user would point ripgrep at. */
  roots: string[];
  generateMs: number;
  /** The Zipf corpus's vocabulary: word types in all, and those its text drew. */
  vocabulary?: { types: number; typesUsed: number; exponent: number };
}

/** About `messages` transcript messages of the named corpus under `root`. */
export async function historyCorpus(
  name: CorpusName,
  root: string,
  messages: number,
  seed: number,
): Promise<HistoryCorpus> {
  return name === "demo" ? demoCorpus(root, messages, seed) : zipfCorpus(root, messages, seed);
}

/**
 * Claude Code, Codex and opencode transcripts totalling about `messages` messages, beside the
 * demo's small Gemini CLI, Qwen Code, GitHub Copilot CLI and pi corpora (read from the same HOME).
 */
async function demoCorpus(root: string, messages: number, seed: number): Promise<HistoryCorpus> {
  const t0 = performance.now();
  const claude = Math.round(messages * 0.44);
  const codex = Math.round(messages * 0.31);
  const manifest = await generateDemoCorpus({
    root,
    seed,
    sources: {
      claude: { messages: claude },
      codex: { messages: codex },
      opencode: { messages: messages - claude - codex },
      dyad: false,
    },
  });
  // The Gemini CLI and Qwen Code chats the demo adds are indexed too: their bytes and messages count.
  const agents = demoAgentPaths(root);
  // The newer agents' small corpora (Cline, Kilo Code, Continue) are read and measured too.
  const newer = manifest.newerAgents;
  const roots = [
    manifest.paths.claudeConfigDir,
    manifest.paths.codexHome,
    manifest.paths.opencodeDataDir,
    agents.geminiDir,
    agents.qwenHome,
    manifest.paths.copilotHome,
    manifest.paths.piAgentDir,
    ...(newer ? Object.values(newer.paths) : []),
  ].filter((r) => existsSync(r));
  return {
    name: "demo",
    home: root,
    queries: demoQueryCorpus(manifest, ["claude", "codex", "opencode"]),
    messages:
      manifest.counts.claude.messages +
      manifest.counts.codex.messages +
      manifest.counts.opencode.messages +
      (manifest.agents?.gemini.messages ?? 0) +
      (manifest.agents?.qwen.messages ?? 0) +
      manifest.moreAgents.copilot.messages +
      manifest.moreAgents.pi.messages +
      (newer ? Object.values(newer.counts).reduce((n, c) => n + c.messages, 0) : 0),
    sourceBytes: roots.reduce((a, r) => a + treeBytes(r), 0),
    roots,
    generateMs: performance.now() - t0,
  };
}

/** Claude Code transcripts of `messages` messages whose words follow a Zipf law. */
function zipfCorpus(root: string, messages: number, seed: number): HistoryCorpus {
  const t0 = performance.now();
  const m = generateZipfCorpus({ root, messages, seed });
  return {
    name: "zipf",
    home: root,
    queries: {
      needles: m.needles,
      projects: m.projects,
      sources: ["claude"],
      commonWords: m.commonWords,
      identifiers: [m.paths, m.symbols],
    },
    messages: m.messages,
    sourceBytes: treeBytes(m.claudeConfigDir),
    roots: [m.claudeConfigDir],
    generateMs: performance.now() - t0,
    vocabulary: m.vocabulary,
  };
}

export interface ChatCorpus {
  dbFile: string;
  manifest: DemoManifest;
  messages: number;
  sourceBytes: number;
  generateMs: number;
}

/** One Dyad app holding `messages` chat messages (issue #4's embedded case). */
export async function chatCorpus(root: string, messages: number, seed: number): Promise<ChatCorpus> {
  const t0 = performance.now();
  const manifest = await generateDemoCorpus({
    root,
    seed,
    sources: {
      dyad: { messages, sessions: Math.max(1, Math.round(messages / 15)), projects: 1 },
      claude: false,
      codex: false,
      opencode: false,
    },
  });
  return {
    dbFile: manifest.paths.dyadDb,
    manifest,
    messages: manifest.counts.dyad.messages,
    sourceBytes: treeBytes(manifest.paths.dyadDb),
    generateMs: performance.now() - t0,
  };
}

/** Bytes of a SQLite database with its WAL and shared-memory files. */
export function databaseBytes(file: string): number {
  return [file, `${file}-wal`, `${file}-shm`].reduce((a, f) => a + (existsSync(f) ? statSync(f).size : 0), 0);
}
