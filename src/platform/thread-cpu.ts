import { readFileSync } from "node:fs";

/**
 * CPU time of the calling thread so far, in ms. process.cpuUsage() counts every thread of the
 * process (V8's GC helpers, libuv's pool, worker threads such as the split's backup check and
 * checkpointer), so a step timed with it is charged for work done beside it. On Linux the
 * thread's own time is in /proc/thread-self/schedstat (ns on the CPU; about 7 µs a read); elsewhere
 * the process's time stands in.
 */
export function threadCpuMs(): number {
  if (schedstat) {
    try {
      return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ", 1)[0]) / 1e6;
    } catch {
      schedstat = false;
    }
  }
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

let schedstat = process.platform === "linux";
