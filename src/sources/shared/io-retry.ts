/**
 * A read that failed in a system call (EIO, EACCES, EMFILE, a file replaced as it was read) may
 * pass by itself, unlike bytes that do not decode: the reader tries again, unchanged, after a
 * backoff, so a finished file or session does not stay silently stale until a restart.
 */

/** The first retry waits this long, doubling up to the maximum. */
export const IO_RETRY_FIRST_MS = 5_000;
export const IO_RETRY_MAX_MS = 10 * 60_000;

/** When to try again after `failures` consecutive failed reads (1 or more). */
export function ioRetryAt(now: number, failures: number): number {
  return now + Math.min(IO_RETRY_MAX_MS, IO_RETRY_FIRST_MS * 2 ** (Math.max(1, failures) - 1));
}

/** A failed system call (it carries the call's name), not bytes that failed to decode or parse. */
export function isSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

/** A file that is simply not there (deleted since it was listed): no loss, nothing to retry. */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
