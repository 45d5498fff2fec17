import { spawn } from "node:child_process";

/**
 * glibc's malloc settings for a process that indexes in the foreground (`recall index`, `reindex`).
 *
 * glibc maps a block of 128 KiB or more on its own and unmaps it when freed, but each such free
 * raises that threshold to the block's size (up to 32 MiB): from then on the large, short-lived
 * buffers a backfill makes (a batch's file bytes, a posted batch's serialised copy, brotli's state)
 * come from each thread's arena, which gives little back to the system. Holding the threshold at
 * its default (`MALLOC_MMAP_THRESHOLD_`, which also turns the raising off) put a 1M demo first
 * backfill's peak RSS at 229–259 MiB against 280–290 MiB, its time within the 2-core VM's noise
 * (docs/benchmarks.md, 2026-12-07). Capping the arenas (`MALLOC_ARENA_MAX`) saved less and makes
 * the threads share arenas.
 *
 * glibc reads the variable once, when a process starts, so the command runs itself again with it.
 */
export const MALLOC_SETTINGS: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: "131072" };

/** Signals a terminal or a supervisor sends the command, passed on to the process that works. */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Whether this process should run itself again with MALLOC_SETTINGS: on Linux (glibc's variable;
 * musl ignores it), unless the environment already sets it (the run again, or the user's choice).
 */
export function wantsMallocSettings(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  return platform === "linux" && Object.keys(MALLOC_SETTINGS).every((name) => env[name] === undefined);
}

/**
 * Runs this process's command line again in a child with MALLOC_SETTINGS, on the same standard
 * streams, and ends this process as the child ends (its exit code, or the signal that ended it).
 * Signals sent to this process are passed on: a command that handles none (`recall index`) ends on
 * the first, so one that also reaches the child from the terminal does no harm. Resolves only
 * when the child could not be started: the caller then carries on in this process.
 */
export function runAgainWithMallocSettings(): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: "inherit",
      env: { ...process.env, ...MALLOC_SETTINGS },
    });
    const forward = (signal: NodeJS.Signals) => void child.kill(signal);
    for (const signal of FORWARDED) process.on(signal, forward);
    const detach = () => {
      for (const signal of FORWARDED) process.removeListener(signal, forward);
    };
    let started = false;
    child.once("spawn", () => (started = true));
    // Only a child that never started leaves the work to this process (a failed kill is no reason).
    child.on("error", () => {
      if (started) return;
      detach();
      resolve();
    });
    child.once("exit", (code, signal) => {
      detach();
      if (signal) process.kill(process.pid, signal);
      else process.exit(code ?? 1);
    });
  });
}
