import { existsSync } from "node:fs";
import path from "node:path";
import { isFolder } from "./real-path.js";

/**
 * The canonical project of a recorded working directory: its git root (the nearest folder
 * upwards holding `.git`, a directory or a worktree's file) when the folder still exists on
 * this machine, else the recorded path normalised. Never a basename: two checkouts named
 * `app` stay two projects. Results are cached (bounded), since every record carries a cwd.
 */
export class ProjectResolver {
  private readonly cache = new Map<string, string>();

  constructor(private readonly capacity = 4096) {}

  resolve(cwd: string | null | undefined): string | null {
    if (!cwd) return null;
    const cached = this.cache.get(cwd);
    if (cached !== undefined) return cached;
    const project = resolveProject(cwd);
    if (this.cache.size >= this.capacity) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(cwd, project);
    return project;
  }
}

export function resolveProject(cwd: string): string {
  // Windows paths recorded on another machine are kept as written (normalised separators only).
  if (!cwd.startsWith("/")) return /^[A-Za-z]:[\\/]/.test(cwd) ? path.win32.normalize(cwd) : cwd;
  const normalized = path.posix.normalize(cwd).replace(/(.)\/+$/, "$1");
  if (!isFolder(normalized)) return normalized;
  let dir = normalized;
  for (;;) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return normalized;
    dir = parent;
  }
}

/** A project argument as recall stores projects: an absolute, normalised path. */
export function canonicalProjectArg(value: string, cwd = process.cwd()): string {
  const absolute = path.isAbsolute(value) ? value : path.resolve(cwd, value);
  return path.normalize(absolute).replace(/(.)\/+$/, "$1");
}
