import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Process-level tests run dist/cli/main.js, so compile first (incremental, a few seconds).
 * Type errors do not stop the emit or the tests: `npm run typecheck` is the gate for those.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const result = spawnSync(
    process.execPath,
    ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  if (result.status !== 0) {
    process.stderr.write(
      `[global-setup] tsc reported problems (run npm run typecheck):\n${result.stdout}${result.stderr}`,
    );
  }
}
