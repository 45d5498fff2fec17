import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { isMainThread } from "node:worker_threads";

/** The nice value background threads take: the kernel then gives a busy one about a tenth of a core's share. */
export const BACKGROUND_NICENESS = 10;

/**
 * Lowers the calling worker thread's CPU priority, so a thread serving requests in the same
 * process (or another) gets a busy core first; threads it starts inherit it. Linux only, where a
 * nice value belongs to a thread (setpriority takes its id, /proc/thread-self names it);
 * elsewhere setpriority would lower the whole process, so nothing changes. Returns whether it did.
 */
export function lowerThreadPriority(niceness = BACKGROUND_NICENESS): boolean {
  if (process.platform !== "linux" || isMainThread) return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
