import { realpathSync } from "node:fs";
import path from "node:path";

/** The path with every link resolved, or as given (made absolute) when it does not exist. */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
