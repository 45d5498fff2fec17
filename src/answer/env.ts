/**
 * The environment of every provider process (probes and runs), built from an allow-list and never
 * inherited whole. recall's own environment is the user's shell: it may hold API keys
 * (`CODEX_API_KEY`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`), base-URL or proxy overrides set for
 * other work, `NODE_OPTIONS` and CLI config switches. Any of them could move an answer onto paid
 * credits, to another endpoint, or load user configuration, so none passes unless listed here.
 * Pure functions: paths are computed here, folders are made by ./home.ts.
 */
import path from "node:path";
import type { Env } from "./process.js";

/**
 * What any CLI needs to start at all: PATH finds it (and `node` for npm-installed ones), HOME and
 * the user's name locate its login (the macOS keychain is read for $USER), TMPDIR is the per-user
 * temp folder on macOS, and the locale keeps its output decoding as the user's.
 */
const BASE_KEYS = ["PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TZ", "LANG", "LANGUAGE"];
const LOCALE_KEY = /^LC_[A-Z_]+$/;

/** `env` reduced to the base keys, the locale and `extra` (a CLI's own login location). */
export function allowListedEnv(env: Env, extra: readonly string[] = []): Record<string, string> {
  const allowed = new Set([...BASE_KEYS, ...extra]);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (allowed.has(key) || LOCALE_KEY.test(key))) out[key] = value;
  }
  return out;
}

/** The user's home as the caller's environment gives it ("" when unknown: no login is linked). */
const userHome = (env: Env): string => env.HOME ?? "";

// ---- Claude ----------------------------------------------------------------------------------

/**
 * Claude's plan login lives in `$CLAUDE_CONFIG_DIR` (default `~/.claude`, plus `~/.claude.json`)
 * or, on macOS, in the keychain; `CLAUDE_CODE_OAUTH_TOKEN` is the plan token `claude setup-token`
 * makes. API keys, auth tokens, base URLs and the Bedrock/Vertex switches are left out, so the
 * usage probe sees the plan login or nothing (and then skips Claude).
 */
export const CLAUDE_LOGIN_KEYS = ["CLAUDE_CONFIG_DIR", "CLAUDE_CODE_OAUTH_TOKEN"];

export function claudeEnv(env: Env): Record<string, string> {
  return {
    ...allowListedEnv(env, CLAUDE_LOGIN_KEYS),
    // Auto memory writes ~/.claude/projects/<cwd>/memory/ and runs an extra extraction request
    // after the answer; the variable outranks any setting.
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
  };
}

/** Claude's folder for per-project state: `$CLAUDE_CONFIG_DIR` or `~/.claude`. */
export function claudeConfigDir(env: Env): string | null {
  if (env.CLAUDE_CONFIG_DIR) return env.CLAUDE_CONFIG_DIR;
  return userHome(env) ? path.join(userHome(env), ".claude") : null;
}

/**
 * The folders Claude makes for a working directory under `projects/`: every character but ASCII
 * letters and digits becomes "-" (its own rule for project folder names). Both the path as given
 * and its real path are listed, since the CLI may see either (macOS /var is /private/var).
 */
export function claudeProjectDirs(env: Env, cwds: readonly string[]): string[] {
  const base = claudeConfigDir(env);
  if (!base) return [];
  const names = new Set(cwds.map((cwd) => cwd.replace(/[^a-zA-Z0-9]/g, "-")));
  return [...names].map((name) => path.join(base, "projects", name));
}

// ---- Codex -----------------------------------------------------------------------------------

/** Codex's login: `auth.json` in `$CODEX_HOME` (default `~/.codex`). */
export function codexAuthFile(env: Env): string | null {
  const home = env.CODEX_HOME || (userHome(env) ? path.join(userHome(env), ".codex") : "");
  return home ? path.join(home, "auth.json") : null;
}

/** The clean folders a Codex probe or run gets, inside the answer's private scratch folder. */
export function codexHomes(scratch: string): { home: string; codexHome: string } {
  return { home: path.join(scratch, "codex", "home"), codexHome: path.join(scratch, "codex", "codex-home") };
}

/**
 * Codex runs with a clean `CODEX_HOME` holding only a link to the user's auth.json: no
 * config.toml (MCP servers, profiles, providers with base URLs), no AGENTS.md, no skills, rules,
 * memories or logs of the user's. HOME is a clean folder too, so nothing under the user's home
 * (`~/.agents/skills`) is read. `CODEX_API_KEY`/`OPENAI_API_KEY` are not passed: with them
 * `codex exec` bills the metered API instead of the plan whose limits were read.
 */
export function codexEnv(env: Env, scratch: string): Record<string, string> {
  const { home, codexHome } = codexHomes(scratch);
  return { ...allowListedEnv(env), HOME: home, CODEX_HOME: codexHome };
}

// ---- opencode --------------------------------------------------------------------------------

/** opencode's login (`<data>/opencode/auth.json`) and its cache of catalogs and provider packages. */
export function opencodeUserPaths(env: Env): { authFile: string | null; cacheHome: string | null } {
  const home = userHome(env);
  const data = env.XDG_DATA_HOME || (home ? path.join(home, ".local", "share") : "");
  const cache = env.XDG_CACHE_HOME || (home ? path.join(home, ".cache") : "");
  return {
    authFile: data ? path.join(data, "opencode", "auth.json") : null,
    cacheHome: cache || null,
  };
}

/** The clean folders an opencode probe or run gets, inside the answer's scratch folder. */
export function opencodeHomes(scratch: string): {
  home: string;
  config: string;
  data: string;
  state: string;
  db: string;
} {
  const root = path.join(scratch, "opencode");
  return {
    home: path.join(root, "home"),
    config: path.join(root, "config"),
    data: path.join(root, "data"),
    state: path.join(root, "state"),
    db: path.join(root, "opencode-answer.db"),
  };
}

/**
 * Settings for every opencode process: every tool and permission denied, one step for the agent
 * (the last step of an agent is asked for text without tools), no sharing. With XDG_CONFIG_HOME
 * clean these are the only settings opencode reads besides the admin's managed ones.
 */
export const OPENCODE_CONFIG = {
  tools: { "*": false },
  permission: { "*": "deny" },
  agent: { build: { steps: 1, tools: { "*": false } } },
  mcp: {},
  share: "disabled",
};

/** Switches for whatever opencode would otherwise load from the project or from other CLIs. */
export const OPENCODE_SWITCHES = {
  OPENCODE_CONFIG_CONTENT: JSON.stringify(OPENCODE_CONFIG),
  OPENCODE_PERMISSION: JSON.stringify({ "*": "deny" }),
  OPENCODE_DISABLE_PROJECT_CONFIG: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
};

/**
 * opencode reads user configuration from XDG_CONFIG_HOME (opencode.json with MCP servers,
 * AGENTS.md), from `~/.opencode/` and `~/.agents/skills` under HOME, and keeps sessions, logs and
 * its database under XDG_DATA_HOME/XDG_STATE_HOME. All of these point into the scratch folder;
 * the data folder there holds only a link to the user's auth.json. The cache stays the user's:
 * it holds the model catalog the probe priced and the provider packages a run loads.
 */
export function opencodeEnv(env: Env, scratch: string): Record<string, string> {
  const homes = opencodeHomes(scratch);
  const { cacheHome } = opencodeUserPaths(env);
  return {
    ...allowListedEnv(env),
    HOME: homes.home,
    XDG_CONFIG_HOME: homes.config,
    XDG_DATA_HOME: homes.data,
    XDG_STATE_HOME: homes.state,
    ...(cacheHome ? { XDG_CACHE_HOME: cacheHome } : {}),
    ...OPENCODE_SWITCHES,
    // Its own throwaway database: the answer's session never lands in the user's opencode
    // history, where recall would index its own output.
    OPENCODE_DB: homes.db,
  };
}
