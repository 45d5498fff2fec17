import { readFileSync } from "node:fs";

/**
 * CPU time of the calling thread so far, in ms. process.cpuUsage() counts every thread of the
 * process (V8's GC helpers, libuv's pool, worker threads such as the split's backup check and
 * checkpointer), so a step timed with it is charged for work done beside it. On Linux the
 * thread's own time is in /proc/thread-self/schedstat (ns on the CPU; about 7 µs a read), which the
 * kernel brings up to date at its ticks, so a step's figure may be off by one tick (4 ms at 250 Hz;
 * a 0.5 ms step can read 4 ms). Elsewhere the process's time stands in.
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
