import { existsSync } from "node:fs";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import { projectSummaries } from "../conversations/browse.js";
import { canonicalProjectArg } from "../platform/project.js";
import type { Db } from "../store/open.js";

/**
 * A `--project` value as a person types it: a folder (relative to here), or — when no such folder
 * is here — the end of an indexed project's path (`acme-auth` for /home/me/code/acme-auth). Several
 * such projects, or none, are a usage error naming them: never an empty search that looks like
 * "nothing was said".
 */
export function resolveProjectArg(db: Db, value: string, cwd = process.cwd()): string {
  const canonical = canonicalProjectArg(value, cwd);
  if (path.isAbsolute(value) || existsSync(canonical)) return canonical;
  const suffix = `/${value.replace(/^\.\/+/, "").replace(/\/+$/, "")}`;
  const named = projectSummaries(db)
    .map((p) => p.project)
    .filter((p) => p.endsWith(suffix));
  if (named.length === 1) return named[0]!;
  if (named.length > 1)
    throw new RecallError(
      "Usage",
      `--project: ${named.length} indexed projects end with ${value}: ${named.slice(0, 5).join(", ")}${named.length > 5 ? ", …" : ""}`,
    );
  throw new RecallError(
    "Usage",
    `--project: no folder ${canonical} here, and no indexed project ends with ${value}`,
  );
}
