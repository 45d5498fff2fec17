import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Every file under a folder (RECALL_HOME: databases, their WAL, backups, audit, token). */
export function filesUnder(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  walk(dir);
  return files;
}

/**
 * The files under `dir` that hold any of `needles` (byte for byte), each with the first it
 * holds: what a forget must leave nowhere in recall's files.
 */
export function filesHolding(dir: string, needles: readonly Buffer[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(dir)) {
    const bytes = readFileSync(file);
    const needle = needles.find((n) => bytes.indexOf(n) >= 0);
    if (needle) found.push(`${path.relative(dir, file)}: ${needle.toString()}`);
  }
  return found;
}
