import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { backupStamp } from "./migrate.js";
import type { Db } from "./open.js";
import { makePrivateDir } from "./private-files.js";

/**
 * A first backfill into an empty index runs with `synchronous = OFF` and a 64 MiB WAL between
 * checkpoints. Measured at 1M records (the store's writes replayed alone): 44.4 s with the usual
 * NORMAL and 4 MiB, 33.2 s this way; most of the difference is the fsyncs of the frequent
 * checkpoints.
 *
 * In WAL mode, OFF loses nothing when a process dies: every committed frame has already been
 * handed to the operating system. Only an OS crash or a power loss can leave the file torn. A
 * marker file beside the database tells the next writer to look:
 * - the same boot and the loader still alive: it is still running, leave it;
 * - the same boot and the loader gone: flush both files to disk, then drop the marker;
 * - another boot: the index may be torn. It holds nothing the sources cannot give again (it was
 *   empty when the load began), so it is moved into the backups folder and a fresh index is built.
 */
const WAL_BYTES_BETWEEN_CHECKPOINTS = 64 * 1024 * 1024;
const DEFAULT_WAL_AUTOCHECKPOINT = 1_000;

interface Marker {
  pid: number;
  boot: string;
  /** The loader's start time where the OS tells it (Linux): a reused pid is not the loader. */
  started?: string | null;
}

export function markerFile(dbFile: string): string {
  return `${dbFile}.first-load`;
}

/** This boot: Linux's boot id, elsewhere the boot time in seconds (compared with a tolerance). */
export function currentBoot(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return `t:${Math.round(Date.now() / 1000 - os.uptime())}`;
  }
}

function sameBoot(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.startsWith("t:") || !b.startsWith("t:")) return false;
  return Math.abs(Number(a.slice(2)) - Number(b.slice(2))) <= 2;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null where there is no /proc. */
function processStarted(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function loaderAlive(marker: Marker): boolean {
  try {
    process.kill(marker.pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPERM") return false;
  }
  return !marker.started || processStarted(marker.pid) === marker.started;
}

function fsyncPath(file: string, flags: "r" | "r+"): void {
  let fd: number;
  try {
    fd = openSync(file, flags);
  } catch {
    return; // absent (no WAL), or a directory that cannot be opened (Windows)
  }
  try {
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on a directory; the file fsyncs above are what matter
  } finally {
    closeSync(fd);
  }
}

function flushToDisk(dbFile: string): void {
  fsyncPath(`${dbFile}-wal`, "r+");
  fsyncPath(dbFile, "r+");
}

/**
 * True when the index holds nothing the sources cannot give again: no retained history and no
 * tombstone (a `recall forget` must survive the index being set aside).
 */
export function isEmptyIndex(db: Db): boolean {
  return (
    db
      .prepare(
        `SELECT 1 WHERE EXISTS (SELECT 1 FROM recall_records) OR EXISTS (SELECT 1 FROM recall_documents)
           OR EXISTS (SELECT 1 FROM recall_raw_chunks) OR EXISTS (SELECT 1 FROM recall_tombstones)`,
      )
      .get() === undefined
  );
}

export interface FirstLoad {
  /** Back to the usual durability: settings restored, files flushed, marker removed. Idempotent. */
  end(): void;
}

/** Starts an unsynced first load on this (empty) index's writer connection. */
export function beginFirstLoad(db: Db): FirstLoad {
  const file = db.name;
  const marker: Marker = { pid: process.pid, boot: currentBoot(), started: processStarted(process.pid) };
  writeFileSync(markerFile(file), JSON.stringify(marker), { mode: 0o600 });
  fsyncPath(markerFile(file), "r");
  fsyncPath(path.dirname(file), "r");
  db.pragma("synchronous = OFF");
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.round(WAL_BYTES_BETWEEN_CHECKPOINTS / pageSize)}`);
  let ended = false;
  return {
    end() {
      if (ended) return;
      ended = true;
      db.pragma("synchronous = NORMAL");
      db.pragma(`wal_autocheckpoint = ${DEFAULT_WAL_AUTOCHECKPOINT}`);
      flushToDisk(file);
      rmSync(markerFile(file), { force: true });
      fsyncPath(path.dirname(file), "r");
    },
  };
}

export type FirstLoadRecovery = "none" | "running" | "flushed" | "set-aside";

/**
 * Run by a writer before it opens the index: what a first load that did not end left behind.
 * A torn index is moved (with its WAL) into `backupDir`, never deleted.
 */
export function recoverFirstLoad(dbFile: string, backupDir: string, boot = currentBoot()): FirstLoadRecovery {
  let marker: Marker;
  try {
    marker = JSON.parse(readFileSync(markerFile(dbFile), "utf8")) as Marker;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return "none";
    marker = { pid: 0, boot: "" }; // unreadable: written just before a crash, treated as another boot
  }
  if (sameBoot(marker.boot, boot)) {
    if (marker.pid !== process.pid && loaderAlive(marker)) return "running";
    flushToDisk(dbFile);
  } else {
    makePrivateDir(backupDir);
    const aside = path.join(backupDir, `${path.basename(dbFile)}.first-load-torn.${backupStamp(Date.now())}`);
    for (const suffix of ["", "-wal", "-shm"]) {
      try {
        renameSync(`${dbFile}${suffix}`, `${aside}${suffix}`);
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOENT") throw error;
      }
    }
  }
  rmSync(markerFile(dbFile), { force: true });
  fsyncPath(path.dirname(dbFile), "r");
  return sameBoot(marker.boot, boot) ? "flushed" : "set-aside";
}
