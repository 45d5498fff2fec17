import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * A worker thread's entry file, found from the module that starts it (`from`: its
 * import.meta.url): beside it when compiled (dist/<folder>/), beside the bundle's entry or one
 * level up from a chunk (dist/bundle/), or the compiled file when it runs from the sources (tests).
 */
export function threadEntry(from: string, file: string, folder: string): URL | null {
  for (const candidate of [`./${file}`, `../${file}`, `../../dist/${folder}/${file}`]) {
    const url = new URL(candidate, from);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}
