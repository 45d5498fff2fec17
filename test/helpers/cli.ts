import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled `recall` binary in a child process with the given environment additions.
 * One still running after `timeoutMs` is killed (status null).
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  timeoutMs = 120_000,
): CliResult {
  const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    input,
    timeout: timeoutMs,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
