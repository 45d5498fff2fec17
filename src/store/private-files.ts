/**
 * recall's own folders and database files hold every conversation, raw transcript bytes
 * included (thinking and tool payloads that no output ever shows): they are the user's alone,
 * whatever the umask. Folders are created 0700 (an existing folder is left as it is: RECALL_HOME
 * may be one the user chose), database files 0600, and SQLite gives a database's -wal and -shm
 * the mode of the database file.
 */
import { chmodSync, closeSync, openSync, statSync } from "node:fs";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import { makeDirs } from "../platform/make-dirs.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates a folder (and its parents) only its owner can enter. */
export function makePrivateDir(dir: string): void {
  makeDirs(dir, DIR_MODE);
}

/** Creates RECALL_HOME private; one that cannot be made is the user's to fix, and said so. */
export function makeRecallHome(home: string): void {
  try {
    makePrivateDir(home);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string") throw error;
    throw new RecallError("Config", `RECALL_HOME ${home}: cannot create this folder (${code})`);
  }
}

/**
 * Makes a database file ready to be opened private: its folder created, the file created empty
 * with mode 0600 when absent (SQLite opens an empty file as a new database), and an existing one
 * and its WAL companions narrowed to 0600 when others could read them.
 */
export function makePrivateDbFile(file: string): void {
  makePrivateDir(path.dirname(file));
  closeSync(openSync(file, "a", FILE_MODE));
  for (const suffix of ["", "-wal", "-shm"]) narrow(`${file}${suffix}`);
}

function narrow(file: string): void {
  try {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(file, mode & ~0o077);
  } catch {
    // absent, or not ours to change: SQLite reports what matters when it opens the file
  }
}
