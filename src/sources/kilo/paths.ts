import { readdirSync } from "node:fs";
import path from "node:path";
import type { Env } from "../../platform/paths.js";

/** $XDG_DATA_HOME/kilo, else ~/.local/share/kilo. */
export const kiloDataDir = (env: Env) =>
  path.resolve(env.XDG_DATA_HOME || path.join(env.HOME ?? "/", ".local", "share"), "kilo");

export function kiloDatabases(env: Env): string[] {
  const dir = kiloDataDir(env);
  try {
    return readdirSync(dir)
      .filter((name) => /^kilo.*\.db$/.test(name))
      .sort()
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}
