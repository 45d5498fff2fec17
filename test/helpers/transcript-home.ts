import { mkdirSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { CLI, type CliResult } from "./cli.js";
import { tempDir } from "./tmp.js";

/**
 * A temporary HOME holding a Claude Code projects folder, a RECALL_HOME beside it, and the
 * environment that points the compiled `recall` at them (the CLIs' own variables unset, so
 * only this HOME is read).
 */
export interface TranscriptHome {
  root: string;
  home: string;
  recallHome: string;
  /** ~/.claude/projects/-p, where test transcripts go. */
  claudeDir: string;
  env: Record<string, string>;
  run: (...args: string[]) => CliResult;
  cleanup: () => void;
}

const UNSET = [
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "COPILOT_HOME",
  "PI_CODING_AGENT_DIR",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "OPENCODE_DB",
  "RECALL_BRIDGE_DIR",
  "RECALL_SESSION_ID",
];

export function createTranscriptHome(): TranscriptHome {
  const t = tempDir("recall-home-");
  const home = path.join(t.dir, "home");
  const recallHome = path.join(t.dir, "recall");
  const claudeDir = path.join(home, ".claude", "projects", "-p");
  mkdirSync(claudeDir, { recursive: true });
  const env: Record<string, string> = { HOME: home, RECALL_HOME: recallHome, NO_COLOR: "1" };
  // The CLIs' variables are removed, not emptied: an empty CLAUDE_CONFIG_DIR names the current folder.
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !UNSET.includes(name) && !(name in env)) env[name] = value;
  return {
    root: t.dir,
    home,
    recallHome,
    claudeDir,
    env,
    run: (...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env, timeout: 120_000 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    cleanup: t.cleanup,
  };
}
