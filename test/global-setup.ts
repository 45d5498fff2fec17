import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Process-level tests run dist/cli/main.js, so compile first (incremental, a few seconds). */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}
