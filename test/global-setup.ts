import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Process-level tests run dist/cli/main.js, so build first as `npm run build` does: compile
 * (incremental, a few seconds), then bundle the CLI that main.js starts (about a second).
 * Type errors do not stop the emit or the tests: `npm run typecheck` is the gate for those.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const steps = [
    {
      args: ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"],
      failed: "tsc reported problems (run npm run typecheck)",
    },
    {
      args: ["node_modules/rolldown/bin/cli.mjs", "-c", "rolldown.config.js"],
      failed: "bundling failed; dist/cli/main.js runs the compiled modules instead",
    },
  ];
  for (const step of steps) {
    const result = spawnSync(process.execPath, step.args, { cwd: root, encoding: "utf8" });
    if (result.status !== 0) {
      process.stderr.write(`[global-setup] ${step.failed}:\n${result.stdout}${result.stderr}`);
    }
  }
}
