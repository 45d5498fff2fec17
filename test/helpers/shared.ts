import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

/**
 * ../shared/ beside the checkout holds real fixtures and benchmarks. A user's clone has
 * none, so tests that need it skip with a visible note instead of failing.
 */
export const SHARED_DIR = path.resolve(fileURLToPath(new URL("../../../shared", import.meta.url)));
export const REAL_FIXTURES = path.join(SHARED_DIR, "fixtures", "real");
/** Seven more CLIs, run for real against a scripted model (README.md and MANIFEST.json there). */
export const REAL_MORE_FIXTURES = path.join(SHARED_DIR, "fixtures", "real-more");
export const LOCOMO_DIR = path.join(SHARED_DIR, "benchmarks", "locomo");

export function sharedAvailable(sub = ""): boolean {
  const available = existsSync(path.join(SHARED_DIR, sub));
  if (!available) {
    console.warn(
      `[skip] ../shared/${sub} is absent (a user's clone has none): tests that read it are skipped.`,
    );
  }
  return available;
}
