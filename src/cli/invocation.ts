import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";

/**
 * How the user can run this recall again from where they are. `npm install` puts no `recall`
 * on PATH (only `npm link` or a global install does), so a hint that says `recall search`
 * would fail: it says `recall` only when PATH's `recall` is this very script, else
 * `node <this script>`, relative to the working folder when it lies below it.
 */
export function recallInvocation(
  script: string,
  env: { PATH?: string },
  cwd: string,
): { command: string; onPath: boolean } {
  const self = realOrNull(script);
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, "recall");
    if (!isExecutable(candidate)) continue;
    // The shell runs the first one: another program of that name hides this recall.
    if (self !== null && realOrNull(candidate) === self) return { command: "recall", onPath: true };
    break;
  }
  const relative = path.relative(cwd, script);
  const shown = relative.startsWith("..") || path.isAbsolute(relative) ? script : relative;
  return { command: `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`, onPath: false };
}

function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
