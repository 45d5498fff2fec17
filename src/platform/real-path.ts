import { realpathSync, statSync } from "node:fs";
import path from "node:path";

/** The path with every link resolved, or as given (made absolute) when it does not exist. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Whether a folder is there (following links); false when nothing is, or it cannot be seen. */
export function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
