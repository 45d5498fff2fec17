import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { type Env } from "../app/recall.js";
import { RecallError } from "../core/errors.js";
import { SOURCES, type SourceDefinition } from "../app/sources.js";

/**
 * Where `recall export --out` may write. An export holds raw transcript bytes (thinking and
 * tool payloads included), and a mistyped path must not destroy anything: the target is never
 * an existing file unless `--force` says so, never inside RECALL_HOME (the live index, its
 * backups, the broker's token) nor inside a folder recall reads as a source (the CLIs'
 * transcript roots, the bridge store), which recall promises to leave unchanged. Links are
 * followed first, so neither a link nor `..` leads around the rule. A new file is 0600 whatever
 * the umask, as recall's own files are.
 */
export interface ExportTargetOptions {
  env: Env;
  /** RECALL_HOME. */
  home: string;
  /** config.json's sources.bridgeDir, when set. */
  bridgeDir?: string;
  force: boolean;
}

const FILE_MODE = 0o600;

/** The folders an export must never write into, each resolved through its links. */
export function protectedFolders(options: Pick<ExportTargetOptions, "env" | "home" | "bridgeDir">): string[] {
  // Only bridgeDir is known here (config.json may be invalid): every other root is the default.
  const settings = options.bridgeDir ? { bridgeDir: options.bridgeDir } : {};
  const sources: readonly SourceDefinition[] = SOURCES;
  const folders = [options.home, ...sources.flatMap((d) => d.roots(options.env, settings))];
  return [...new Set(folders.map(resolveLinks))];
}

/** Opens the --out file for writing, or refuses with a Usage error naming why. */
export function openExportTarget(file: string, options: ExportTargetOptions): number {
  const target = resolveLinks(file);
  const inside = protectedFolders(options).find((folder) => target === folder || isWithin(target, folder));
  if (inside !== undefined)
    throw new RecallError(
      "Usage",
      `--out: ${file} is inside ${inside}, which recall keeps (its index) or reads as a source; write the export elsewhere`,
    );
  try {
    // "wx" fails on anything already there. With --force an existing file is rewritten, unless it
    // is one of RECALL_HOME's files under another name (a hard link), checked before truncating.
    if (!options.force) return openSync(target, "wx", FILE_MODE);
    const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, FILE_MODE);
    if (isRecallFile(fd, options.home)) {
      closeSync(fd);
      throw new RecallError(
        "Usage",
        `--out: ${file} is one of the files in ${options.home}; write the export elsewhere`,
      );
    }
    ftruncateSync(fd, 0);
    return fd;
  } catch (error) {
    if (error instanceof RecallError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "EEXIST")
      throw new RecallError("Usage", `--out: ${file} already exists; pass --force to overwrite it`);
    throw new RecallError("Usage", `--out: cannot write ${file} (${code})`);
  }
}

/** Whether an open file is one of the files directly in RECALL_HOME (the index, its WAL, the token). */
function isRecallFile(fd: number, home: string): boolean {
  const opened = fstatSync(fd);
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return false;
  }
  return names.some((name) => {
    try {
      const s = statSync(path.join(home, name));
      return s.isFile() && s.dev === opened.dev && s.ino === opened.ino;
    } catch {
      return false;
    }
  });
}

function isWithin(target: string, folder: string): boolean {
  const relative = path.relative(folder, target);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/**
 * The path with the links of its longest existing part resolved (the rest appended as given):
 * a file not yet there, in a folder reached through a link, resolves to where it will be written.
 */
function resolveLinks(p: string): string {
  const absolute = path.resolve(p);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}
