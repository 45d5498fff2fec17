import { closeSync, openSync, readSync } from "node:fs";
import path from "node:path";

const CHUNK = Buffer.alloc(1 << 20);

/**
 * Reads an index's files (history.db and its WAL) through once, so the process started next finds
 * them in the OS page cache: the condition the first-call and cold-process figures are stated for,
 * a machine in use. Some kernels reclaim file pages that sit idle for a minute (this VM runs
 * DAMON's pageout), and a sample then read from disk whatever pages had gone: with the 1M Zipf
 * index left idle, fresh servers' first calls took 56 / 25 / 29 ms at the median (identifier /
 * mixed / common) against 26 / 13 / 15 with the file read first (docs/benchmarks.md, 12-06).
 */
export function warmPageCache(recallHome: string): void {
  for (const name of ["history.db", "history.db-wal"]) {
    let fd: number;
    try {
      fd = openSync(path.join(recallHome, name), "r");
    } catch {
      continue; // no WAL
    }
    try {
      while (readSync(fd, CHUNK, 0, CHUNK.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
}
