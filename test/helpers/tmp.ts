import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = "recall-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
