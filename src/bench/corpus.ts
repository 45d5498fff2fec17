import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateDemoCorpus, type DemoManifest } from "../demo/index.js";

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

export interface HistoryCorpus {
  /** The fake HOME the CLIs' files live under. */
  home: string;
  manifest: DemoManifest;
  /** Conversation records the generator wrote (its own unit per source). */
  messages: number;
  sourceBytes: number;
  /** Folders a user would point ripgrep at. */
  roots: string[];
  generateMs: number;
}

/** Claude Code, Codex and opencode transcripts totalling about `messages` messages. */
export async function historyCorpus(root: string, messages: number, seed: number): Promise<HistoryCorpus> {
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
  const roots = [manifest.paths.claudeConfigDir, manifest.paths.codexHome, manifest.paths.opencodeDataDir];
  return {
    home: root,
    manifest,
    messages:
      manifest.counts.claude.messages + manifest.counts.codex.messages + manifest.counts.opencode.messages,
    sourceBytes: roots.reduce((a, r) => a + treeBytes(r), 0),
    roots,
    generateMs: performance.now() - t0,
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
