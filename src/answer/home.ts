import { existsSync, lstatSync } from "node:fs";
import { mkdir, rm, symlink } from "node:fs/promises";
import path from "node:path";

/**
 * Makes the clean folders of a provider process (idempotent: the probe and the run of one answer
 * share them) and links the user's login file into place. A link, not a copy: a CLI that refreshes
 * its OAuth token rewrites the file in place (codex opens auth.json with truncate), so the user's
 * own login stays current; a copy would keep the refreshed token in a folder about to be removed
 * and leave the user with a rotated-out one. A missing login is left missing: the CLI then reports
 * no login and the provider is skipped.
 */
export async function prepareCleanHome(
  folders: readonly string[],
  links: readonly { from: string | null; to: string }[],
): Promise<void> {
  for (const folder of folders) await mkdir(folder, { recursive: true });
  for (const { from, to } of links) {
    if (!from || !existsSync(from) || linkExists(to)) continue;
    await mkdir(path.dirname(to), { recursive: true });
    await symlink(from, to);
  }
}

function linkExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work`, then removes each of `dirs` that did not exist before it: exactly what the run
 * created, never a folder the user already had. Used for state a CLI writes outside the answer's
 * temporary folders (Claude's `projects/<cwd>/` folder).
 */
export async function removingNewDirs<T>(dirs: readonly string[], work: () => Promise<T>): Promise<T> {
  const fresh = dirs.filter((dir) => !linkExists(dir));
  try {
    return await work();
  } finally {
    // rm does not follow links inside the tree: whatever they point to stays.
    await Promise.all(fresh.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
  }
}
