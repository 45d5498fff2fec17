import { mkdirSync } from "node:fs";
import path from "node:path";
import { isFolder } from "./real-path.js";

/** mkdir's EEXIST for a folder that is there: the wanted outcome, not a failure. */
function alreadyThere(error: unknown, dir: string): boolean {
  return (error as { code?: unknown }).code === "EEXIST" && isFolder(dir);
}

/**
 * `mkdir -p` that always ends. Node's own recursive mkdir retries for ever when mkdir says
 * ENOENT under a parent that exists (procfs does: RECALL_HOME=/proc/1/x); here a folder is
 * tried at most twice, before and after its parent is made, and any other error is final.
 */
export function makeDirs(dir: string, mode?: number): void {
  const target = path.resolve(dir);
  try {
    mkdirSync(target, { mode });
    return;
  } catch (error) {
    if (alreadyThere(error, target)) return;
    if ((error as { code?: unknown }).code !== "ENOENT" || path.dirname(target) === target) throw error;
  }
  makeDirs(path.dirname(target), mode);
  try {
    mkdirSync(target, { mode });
  } catch (error) {
    if (!alreadyThere(error, target)) throw error;
  }
}
