/**
 * Fault injection for file reads: the next `times` read system calls on one file fail with EIO,
 * as a flaky disk or network mount would. Node's own fs is patched and its ESM named exports
 * synced (module.syncBuiltinESMExports), so the code under test keeps its plain imports.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/** The fs functions these injectors replace. */
type FsPatch = Partial<Pick<typeof fs, "openSync" | "readSync" | "closeSync" | "opendirSync">>;

/** Replaces some of fs's functions (their ESM exports synced); the result puts them back. */
function patchFs(patch: FsPatch): () => void {
  const saved = {
    openSync: fs.openSync,
    readSync: fs.readSync,
    closeSync: fs.closeSync,
    opendirSync: fs.opendirSync,
  };
  Object.assign(fs, patch);
  syncBuiltinESMExports();
  return () => {
    Object.assign(fs, saved);
    syncBuiltinESMExports();
  };
}

export function failReads(file: string, times: number): { failed: () => number; restore: () => void } {
  const { openSync, readSync, closeSync } = fs;
  const fds = new Set<number>();
  let failed = 0;
  const restore = patchFs({
    openSync: (...args: Parameters<typeof openSync>) => {
      const fd = openSync(...args);
      if (args[0] === file) fds.add(fd);
      return fd;
    },
    // A closed descriptor's number is reused by the next open: forget it, or another file fails.
    closeSync: (fd: number) => {
      fds.delete(fd);
      closeSync(fd);
    },
    readSync: (fd: number, ...rest: unknown[]) => {
      if (fds.has(fd) && failed < times) {
        failed += 1;
        throw Object.assign(new Error(`EIO: i/o error, read`), { code: "EIO", errno: -5, syscall: "read" });
      }
      return (readSync as (...a: unknown[]) => number)(fd, ...rest);
    },
  });
  return { failed: () => failed, restore };
}

/** Every open of one file fails with EACCES (a transcript another user owns), until restored. */
export function failOpens(file: string): { failed: () => number; restore: () => void } {
  const { openSync } = fs;
  let failed = 0;
  const restore = patchFs({
    openSync: (...args: Parameters<typeof openSync>) => {
      if (args[0] !== file) return openSync(...args);
      failed += 1;
      throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), {
        code: "EACCES",
        errno: -13,
        syscall: "open",
        path: file,
      });
    },
  });
  return { failed: () => failed, restore };
}

/**
 * Every opening of one folder fails with EACCES (a folder another user owns), until restored:
 * root ignores modes, so tests that run as root cannot make a folder unreadable with chmod.
 */
export function failDirs(dir: string): { failed: () => number; restore: () => void } {
  const { opendirSync } = fs;
  let failed = 0;
  const restore = patchFs({
    opendirSync: (...args: Parameters<typeof opendirSync>) => {
      if (args[0] !== dir) return opendirSync(...args);
      failed += 1;
      throw Object.assign(new Error(`EACCES: permission denied, opendir '${dir}'`), {
        code: "EACCES",
        errno: -13,
        syscall: "opendir",
        path: dir,
      });
    },
  });
  return { failed: () => failed, restore };
}
