import os from "node:os";
import path from "node:path";

export type Env = Readonly<Record<string, string | undefined>>;

/** The user's home folder: HOME, else the OS's (sources resolve every default folder from it). */
export function home(env: Env): string {
  return env.HOME || os.homedir();
}

/** The user's home as a CLI sees it: HOME, else the account's. Sources resolve their folders from it. */
export const userHome = (env: Env): string => home(env);

/** RECALL_HOME, else $XDG_DATA_HOME/recall, else ~/.local/share/recall. */
export function recallHome(env: Env = process.env): string {
  if (env.RECALL_HOME) return path.resolve(env.RECALL_HOME);
  const xdg = env.XDG_DATA_HOME || path.join(home(env), ".local", "share");
  return path.join(xdg, "recall");
}

/** Where each CLI keeps its transcripts, honouring the CLIs' own environment variables. */
export function agentRoots(env: Env = process.env) {
  const h = home(env);
  const xdgData = env.XDG_DATA_HOME || path.join(h, ".local", "share");
  const xdgConfig = env.XDG_CONFIG_HOME || path.join(h, ".config");
  return {
    /**
     * CLAUDE_CONFIG_DIR (a comma-separated list, as ccusage reads it), else both ~/.claude and
     * $XDG_CONFIG_HOME/claude, where some Claude Code versions kept their projects.
     */
    claude: (env.CLAUDE_CONFIG_DIR
      ? env.CLAUDE_CONFIG_DIR.split(",")
      : [path.join(h, ".claude"), path.join(xdgConfig, "claude")]
    ).map((p) => path.resolve(p.trim())),
    codex: path.resolve(env.CODEX_HOME || path.join(h, ".codex")),
    opencodeDataDir: path.join(xdgData, "opencode"),
    /** OPENCODE_DB may be absolute or relative to opencode's data directory. */
    opencodeDb: env.OPENCODE_DB ? path.resolve(path.join(xdgData, "opencode"), env.OPENCODE_DB) : null,
    /** Dyad's Electron userData on Linux; its chats live in sqlite.db there. */
    dyadUserData: path.join(xdgConfig, "dyad"),
  };
}

/**
 * The agent-bridge store's root (bridge.db, archive.db, runs/): RECALL_BRIDGE_DIR, else
 * config.json's sources.bridgeDir (relative to RECALL_HOME), else RECALL_HOME/bridge. See
 * docs/bridge-store.md.
 */
export function bridgeRoot(env: Env = process.env, configured?: string): string {
  if (env.RECALL_BRIDGE_DIR) return path.resolve(env.RECALL_BRIDGE_DIR);
  if (configured) {
    const h = home(env);
    // A relative setting is relative to RECALL_HOME, wherever a command runs from.
    return path.resolve(
      recallHome(env),
      configured === "~" ? h : configured.startsWith("~/") ? path.join(h, configured.slice(2)) : configured,
    );
  }
  return path.join(recallHome(env), "bridge");
}
