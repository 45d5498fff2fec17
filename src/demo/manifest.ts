import { renameSync } from "node:fs";
import path from "node:path";
import { realOrSelf } from "../platform/real-path.js";
import type { BridgeDemoCounts } from "./bridge.js";
import { writeWholeFile } from "./writer.js";

/** The four sources the demo corpus writes. */
export const DEMO_SOURCES = ["claude", "codex", "opencode", "dyad"] as const;
export type DemoSource = (typeof DEMO_SOURCES)[number];

/** Agents the demo writes beside the four sources, outside their shares of `messages`. */
export const DEMO_AGENTS = ["gemini", "qwen"] as const;
export type DemoAgent = (typeof DEMO_AGENTS)[number];

export interface SourceOverride {
  messages: number;
  /** Sessions (Dyad: chats). */
  sessions?: number;
  /** Projects (Dyad: apps). */
  projects?: number;
}

export interface DemoOptions {
  /** A fake HOME: files go where the CLIs put them under it. */
  root: string;
  /** Default 1. */
  seed?: number;
  /** Total approximate message count across all sources, default 600; distributed across sources. */
  messages?: number;
  /**
   * Per-source override. `false` disables a source; `true` or an omitted key keeps its default share
   * of `messages`; an object fixes that source's size, e.g. `{ dyad: { messages: 1_000_000, sessions: 2000, projects: 1 } }`.
   */
  sources?: Partial<Record<DemoSource, boolean | SourceOverride>>;
  /**
   * The agents added after the four above, a few small sessions each: Gemini CLI chats under
   * `<root>/.gemini`, Qwen Code chats under `<root>/.qwen`. On unless `false`.
   */
  agents?: Partial<Record<DemoAgent, boolean>>;
  /** Epoch ms of the oldest message; default a fixed constant (never the clock). Records spread over ~a year. */
  baseTime?: number;
  /** The small corpora of the newer agents (Cline, Kilo Code, Continue); default true. */
  newerAgents?: boolean;
  /**
   * The hand-written showcase sessions (showcase.ts) a first-time user reads: `recall demo` and
   * `npm start` write them; default false, so sized corpora (tests, benches) are only generated.
   */
  showcase?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/**
 * A planted fact and where it must be found. `ref` is the source-specific locator:
 * - claude: `{ path, uuid }` (path relative to root; the JSONL line whose uuid matches)
 * - codex: `{ path, line, eventLine }` (0-based line ordinals of the response_item and its event_msg twin)
 * - opencode: `{ store, messageId, partId? }` (store: `opencode.db` | `opencode-dev.db` | `storage`)
 * - dyad: `{ appId, chatId, messageId }`
 */
export interface Needle {
  query: string;
  token: string;
  source: DemoSource;
  session: string;
  project: string | null;
  at: number;
  ref: Record<string, string | number>;
  role: "user" | "assistant";
  /** The exact sentence (a substring of the message's prose) that carries the token. */
  text: string;
}

export interface SourceCounts {
  sessions: number;
  /** Conversation records written (see each source's module for the unit). */
  messages: number;
  files: number;
}

export interface DemoManifest {
  root: string;
  seed: number;
  counts: Record<DemoSource, SourceCounts>;
  paths: {
    claudeConfigDir: string;
    codexHome: string;
    opencodeDataDir: string;
    dyadDb: string;
    dyadAppsDir: string;
    /** The agent-bridge store (RECALL_BRIDGE_DIR; the default bridge root when RECALL_HOME is unset). */
    bridgeDir: string;
    /** GitHub Copilot CLI's folder (COPILOT_HOME). */
    copilotHome: string;
    /** pi's agent folder (PI_CODING_AGENT_DIR). */
    piAgentDir: string;
  };
  /** What the added agents wrote (absent in a corpus an older recall generated). */
  agents?: Record<DemoAgent, SourceCounts>;
  /** Agent-bridge records written through the bridge writer. */
  bridge: BridgeDemoCounts;
  /** The small corpora of agents added after the spec's three (no needles of their own). */
  moreAgents: { copilot: SourceCounts; pi: SourceCounts };
  /**
   * The newer agents' corpora and where they are (absent from manifests written before them, and
   * kept out of `paths` so such a manifest is still recognised as a demo's).
   */
  newerAgents?: {
    paths: NewerAgentPaths;
    counts: Record<NewerAgent, SourceCounts>;
  };
  /** The showcase sessions written into Claude Code's folder, and a search that finds one. */
  showcase?: { sessions: number; messages: number; query: string };
  /** Absolute project (cwd) paths used; they live under the corpus's fake HOME, /home/demo. */
  projects: string[];
  needles: Needle[];
  /** Markers planted ONLY in bodies that must never surface. */
  canaries: string[];
}

export const MANIFEST_FILE = "demo-manifest.json";

/** Agents the demo writes a small fixed corpus for, beside the four sized ones. */
export const NEWER_AGENTS = ["cline", "kilo", "continue"] as const;
export type NewerAgent = (typeof NEWER_AGENTS)[number];

/** A type, not an interface, so Object.values() of it is string[]. */
export type NewerAgentPaths = {
  /** CLINE_DIR. */
  clineDir: string;
  /** Kilo's data folder: $XDG_DATA_HOME/kilo, beside opencode's. */
  kiloDataDir: string;
  /** CONTINUE_GLOBAL_DIR. */
  continueDir: string;
};

export function newerAgentPaths(root: string): NewerAgentPaths {
  return {
    clineDir: path.join(root, ".cline"),
    kiloDataDir: path.join(root, ".local", "share", "kilo"),
    continueDir: path.join(root, ".continue"),
  };
}

export function demoPaths(root: string): DemoManifest["paths"] {
  return {
    claudeConfigDir: path.join(root, ".claude"),
    codexHome: path.join(root, ".codex"),
    opencodeDataDir: path.join(root, ".local", "share", "opencode"),
    dyadDb: path.join(root, ".config", "dyad", "sqlite.db"),
    dyadAppsDir: path.join(root, "dyad-apps"),
    bridgeDir: path.join(root, ".local", "share", "recall", "bridge"),
    copilotHome: path.join(root, ".copilot"),
    piAgentDir: path.join(root, ".pi", "agent"),
  };
}

/**
 * The added agents' folders, derived from the root (not `paths`: a corpus an older recall wrote
 * stays this corpus). GEMINI_CLI_HOME is the folder holding `.gemini`, QWEN_HOME `.qwen` itself.
 */
export function demoAgentPaths(root: string) {
  return { geminiCliHome: root, geminiDir: path.join(root, ".gemini"), qwenHome: path.join(root, ".qwen") };
}

/**
 * The manifest written before any corpus file: a run cut short (Ctrl-C, a kill) leaves a folder
 * the next run recognises as an earlier demo's (its root) and clears. The full manifest replaces
 * it once the corpus is complete.
 */
export interface IncompleteDemoManifest {
  root: string;
  seed: number;
  incomplete: true;
}

/** A complete manifest of the corpus in `root` (not one moved from elsewhere, cut short or damaged). */
export function isManifestOf(manifest: unknown, root: string): manifest is DemoManifest {
  const m = manifest as Partial<DemoManifest> | null;
  if (typeof m !== "object" || m === null || typeof m.root !== "string" || !Array.isArray(m.needles))
    return false;
  // The same folder spelled another way (a linked HOME) is still this corpus's.
  if (m.root !== root && realOrSelf(m.root) !== realOrSelf(root)) return false;
  const paths = m.paths as Record<string, unknown> | undefined;
  return (
    typeof paths === "object" &&
    paths !== null &&
    Object.keys(demoPaths(root)).every((key) => typeof paths[key] === "string")
  );
}

export function isIncompleteManifest(manifest: unknown): manifest is IncompleteDemoManifest {
  return (manifest as { incomplete?: unknown } | null)?.incomplete === true;
}

export function writeManifest(manifest: DemoManifest | IncompleteDemoManifest): string {
  const file = path.join(manifest.root, MANIFEST_FILE);
  // Whole or not at all: a kill mid-write must not leave a manifest that no longer names the root.
  const partial = `${file}.partial`;
  writeWholeFile(partial, JSON.stringify(manifest, null, 2) + "\n");
  renameSync(partial, file);
  return file;
}
