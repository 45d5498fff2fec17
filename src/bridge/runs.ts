import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { notFound, validationError } from "../core/errors.js";
import { bridgePaths } from "./schema.js";

/**
 * Run log naming: `<job>-<UTC start>.log` with the start as `YYYYMMDDTHHMMSSZ`, and its JSON
 * metadata beside it as `<job>-<UTC start>.json`, in runs/ or (once archived) runs/archive/.
 * The basename (with `.log`) is a run's identity: moving a run to runs/archive/ keeps it.
 */
export const RUN_BASENAME = /^([A-Za-z0-9][A-Za-z0-9._-]{0,99})-(\d{8}T\d{6}Z)$/;
/** Any run name recall accepts: safe in a URL path segment and never a path (no separator). */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export interface RunName {
  /** `<job>-<start>` without an extension. */
  base: string;
  /** The `.log` basename, as hits carry it. */
  log: string;
  job: string;
  /** The UTC start in the name (epoch ms), or null for a log not named `<job>-<UTC start>.log`. */
  startedAt: number | null;
}

export function utcStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
}

export function runName(job: string, startedAt: number): RunName {
  const base = `${job}-${utcStamp(startedAt)}`;
  return { base, log: `${base}.log`, job, startedAt: Math.floor(startedAt / 1000) * 1000 };
}

/**
 * Parses `<job>-<stamp>` or `<job>-<stamp>.log`. A safe name without a UTC start is still a
 * run (its job is the whole name, its time the file's birth time); null when it is unsafe.
 */
export function parseRunName(name: string): RunName | null {
  const base = name.endsWith(".log") ? name.slice(0, -4) : name;
  if (!SAFE_NAME.test(base)) return null;
  const m = RUN_BASENAME.exec(base);
  const s = m?.[2];
  const at = s
    ? Date.UTC(
        +s.slice(0, 4),
        +s.slice(4, 6) - 1,
        +s.slice(6, 8),
        +s.slice(9, 11),
        +s.slice(11, 13),
        +s.slice(13, 15),
      )
    : NaN;
  const valid = s !== undefined && Number.isFinite(at) && utcStamp(at) === s;
  return { base, log: `${base}.log`, job: valid ? m![1]! : base, startedAt: valid ? at : null };
}

export const metadataName = (name: RunName) => `${name.base}.json`;

export interface RunLocation {
  name: RunName;
  /** The folder holding the log: runs/ or runs/archive/. */
  dir: string;
  log: string;
  metadata: string;
  archived: boolean;
}

/**
 * Where a run's log is: runs/ first, then runs/archive/. Only a validated basename is ever
 * joined to those two folders, and the resolved file must stay inside them (no symlink out),
 * so a caller's string can never name another path. Validation for a bad name, NotFound when
 * neither folder holds it.
 */
export function locateRun(root: string, basename: string): RunLocation {
  const name = parseRunName(basename);
  if (!name) throw validationError("run must be a run log name such as <job>-<YYYYMMDDTHHMMSSZ>");
  const paths = bridgePaths(root);
  for (const [dir, archived] of [
    [paths.runs, false],
    [paths.runsArchive, true],
  ] as const) {
    const log = path.join(dir, name.log);
    try {
      if (!statSync(log).isFile()) continue;
      if (path.dirname(realpathSync(log)) !== realpathSync(dir)) continue;
    } catch {
      continue;
    }
    return { name, dir, log, metadata: path.join(dir, metadataName(name)), archived };
  }
  throw notFound(`run ${name.base} not found`);
}
