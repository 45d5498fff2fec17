import { opendirSync, statSync, watch, type Dir, type FSWatcher } from "node:fs";
import path from "node:path";
import type { WatchHooks } from "../types.js";
import type { WalkedFolder } from "./walker.js";

/**
 * Folders one source watches at most. Each is one inotify watch on Linux, where a user's limit
 * (often 8192) is shared with every other program; past it the discovery sweep finds the rest.
 */
export const MAX_WATCHED_FOLDERS = 4096;
/** Changed entries held between batches at most: a larger burst becomes one discovery sweep. */
export const MAX_CHANGED = 1024;

/** Errors that mean no more watches can be added now (the inotify limit, file descriptors). */
const EXHAUSTED = new Set(["ENOSPC", "EMFILE", "ENFILE", "ENOMEM"]);

/** An entry a watch saw appear or change: where it sits in the walk, for the walk rule to judge. */
export interface ChangedEntry {
  path: string;
  root: string;
  /** As the walk counts: 0 directly under the root. */
  depth: number;
}

/** A folder whose entries are to be listed, and which of them count as changed. */
interface ToList {
  folder: WalkedFolder;
  take: (path: string) => boolean;
}

interface Watched {
  watcher: FSWatcher;
  /** The folder's inode: an event named like the folder itself may say it was deleted or replaced. */
  ino: number;
}

/**
 * A file source's filesystem watch: one non-recursive watch per folder its discovery walk opens
 * (the same folders, by the same rule), so it costs one watch per folder, never one per file
 * (Node 20's recursive watch on Linux watches every file, a transcript folder holds thousands).
 * Events only collect changed entries, deduplicated and bounded, for the source's next batch;
 * a failure only stops watching a folder, and the discovery sweep stays the backstop.
 */
export class FolderWatch {
  private readonly folders = new Map<string, Watched>();
  private readonly changed = new Map<string, ChangedEntry>();
  /** More changed than MAX_CHANGED, or an event without a name: the next batch starts a sweep. */
  private overflowed = false;
  /** Why no folder is added until the next sweep ends (the bound, or an exhausted resource). */
  private full: string | null = null;
  private readonly said = new Set<string>();
  private closed = false;
  /** Folders whose entries wait to be listed (list()), the first next; new folders before them. */
  private toList: ToList[] = [];
  private newFolders: ToList[] = [];
  /** Folders being listed, their handles kept between batches: the last one is read first. */
  private listing: (ToList & { dir: Dir })[] = [];

  constructor(
    private readonly source: string,
    private readonly hooks: WatchHooks,
  ) {}

  /** Whether changes, or folders to list, wait for a batch. */
  get waiting(): boolean {
    return (
      this.overflowed ||
      this.changed.size > 0 ||
      this.listing.length > 0 ||
      this.toList.length > 0 ||
      this.newFolders.length > 0
    );
  }

  get size(): number {
    return this.folders.size;
  }

  /** Watches a folder the walk opened, once (again after it was deleted and came back). */
  add(folder: WalkedFolder): boolean {
    if (this.closed || this.full !== null || this.folders.has(folder.path)) return false;
    if (this.folders.size >= MAX_WATCHED_FOLDERS) {
      this.stopAdding(`the bound of ${MAX_WATCHED_FOLDERS}`);
      return false;
    }
    try {
      const ino = statSync(folder.path).ino;
      // Not persistent: a watch never keeps a process alive that is otherwise done.
      const watcher = watch(folder.path, { persistent: false }, (_event, name) => this.event(folder, name));
      watcher.on("error", () => this.drop(folder.path));
      this.folders.set(folder.path, { watcher, ino });
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unknown";
      if (EXHAUSTED.has(code)) this.stopAdding(code);
      // Otherwise gone or unreadable since the walk saw it: the sweep says so if it lasts.
      return false;
    }
  }

  /**
   * Watches the folders known files sit in, and those between them and their root, before the
   * walk opens them: a process that knows its files from the index walks a large home 32 entries
   * a tick, and a session written meanwhile into a folder the walk had not reached waited for it
   * (18–21 s after a broker's start at 1M Claude Code messages, 16,667 files). A folder changed
   * since its newest known file (a file created there while no process watched) is listed, the
   * most recently changed first, and the entries the index does not know are taken as changed,
   * as a new folder's are.
   */
  addFoldersOf(
    files: Iterable<{ path: string; mtime: number | null }>,
    roots: readonly string[],
    isKnown: (path: string) => boolean,
  ): void {
    const leaves = new Map<string, { folder: WalkedFolder; newest: number }>();
    const seen = new Set<string>();
    for (const file of files) {
      const root = roots.find((r) => file.path.startsWith(r + path.sep));
      if (root === undefined) continue;
      const segments = path.relative(root, path.dirname(file.path)).split(path.sep).filter(Boolean);
      const leaf = path.join(root, ...segments);
      const at = leaves.get(leaf);
      if (at) at.newest = Math.max(at.newest, file.mtime ?? 0);
      else
        leaves.set(leaf, { folder: { path: leaf, root, depth: segments.length }, newest: file.mtime ?? 0 });
      for (let depth = segments.length; depth >= 0; depth--) {
        const folder = path.join(root, ...segments.slice(0, depth));
        if (seen.has(folder)) break;
        seen.add(folder);
        this.add({ path: folder, root, depth });
        if (this.full !== null) return;
      }
    }
    const changed: { folder: WalkedFolder; mtime: number }[] = [];
    for (const { folder, newest } of leaves.values()) {
      if (!this.folders.has(folder.path)) continue;
      const mtime = folderMtime(folder.path);
      if (mtime > newest) changed.push({ folder, mtime });
    }
    changed.sort((a, b) => b.mtime - a.mtime);
    const take = (entry: string) => !isKnown(entry);
    for (const { folder } of changed) this.toList.push({ folder, take });
  }

  /**
   * Lists the folders waiting to be listed, at most `max` entries (discovery's bound a tick:
   * the rest wait for the next batch), and holds those taken as changed. Returns the entries read.
   */
  list(max: number): number {
    let read = 0;
    while (read < max && !this.overflowed) {
      // A new folder goes before the rest of a large changed one: it is where a new session is.
      const next = this.newFolders.shift() ?? (this.listing.length === 0 ? this.toList.shift() : undefined);
      if (next) {
        try {
          this.listing.push({ ...next, dir: opendirSync(next.folder.path) });
        } catch {
          // gone or unreadable since: the sweep says so if it lasts
        }
        continue;
      }
      const current = this.listing.at(-1);
      if (!current) break;
      let entry;
      try {
        entry = current.dir.readSync();
      } catch {
        entry = null; // deleted while listed: nothing more to take
      }
      if (entry === null) {
        closeDir(this.listing.pop()!.dir);
        continue;
      }
      read += 1;
      const entryPath = path.join(current.folder.path, entry.name);
      if (current.take(entryPath)) this.note({ ...current.folder, path: entryPath });
    }
    // A burst the sweep takes over: what was still to be listed goes with it.
    if (this.overflowed) this.stopListing();
    return read;
  }

  private stopListing(): void {
    for (const { dir } of this.listing) closeDir(dir);
    this.listing = [];
    this.toList = [];
    this.newFolders = [];
  }

  /**
   * Watches a folder created since the walk passed, and lists what it already holds (before the
   * changed folders waiting): files written before its watch began (or in a folder that cannot be
   * watched now) would otherwise wait for the sweep.
   */
  addNew(folder: WalkedFolder): void {
    if (this.closed || this.folders.has(folder.path)) return;
    this.add(folder);
    this.newFolders.push({ folder, take: () => true });
  }

  /**
   * Up to `max` changed entries, oldest first (the rest wait for the next batch), or "sweep"
   * when more changed than could be held.
   */
  take(max: number): ChangedEntry[] | "sweep" {
    if (this.overflowed) {
      this.overflowed = false;
      this.changed.clear();
      return "sweep";
    }
    const out: ChangedEntry[] = [];
    for (const [key, entry] of this.changed) {
      if (out.length >= max) break;
      out.push(entry);
      this.changed.delete(key);
    }
    return out;
  }

  /** A discovery sweep ended: adding is tried again, and the first to watch any says how many. */
  swept(): void {
    this.full = null;
    if (this.folders.size > 0 && !this.said.has("watching")) {
      this.said.add("watching");
      this.hooks.log(`${this.source}: watching ${this.folders.size} folders for new files`);
    }
  }

  close(): void {
    this.closed = true;
    this.stopListing();
    for (const { watcher } of this.folders.values()) watcher.close();
    this.folders.clear();
    this.changed.clear();
  }

  private event(folder: WalkedFolder, name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      // The platform did not say what changed.
      this.overflowed = true;
    } else {
      // A watched folder deleted or replaced reports its own name, then nothing more: drop it, so
      // the walk (or its parent's watch) can watch the folder again once it is back.
      if (name === path.basename(folder.path) && this.replaced(folder.path)) this.drop(folder.path);
      this.note({ ...folder, path: path.join(folder.path, name) });
    }
    this.hooks.changed();
  }

  /** Holds one changed entry; false once too many are held (a burst: the sweep takes over). */
  private note(entry: ChangedEntry): boolean {
    if (this.overflowed) return false;
    if (this.changed.size >= MAX_CHANGED && !this.changed.has(entry.path)) {
      this.overflowed = true;
      this.changed.clear();
      return false;
    }
    this.changed.set(entry.path, entry);
    return true;
  }

  private replaced(folder: string): boolean {
    try {
      return statSync(folder).ino !== this.folders.get(folder)?.ino;
    } catch {
      return true;
    }
  }

  private drop(folder: string): void {
    this.folders.get(folder)?.watcher.close();
    this.folders.delete(folder);
  }

  private stopAdding(why: string): void {
    this.full = why;
    if (this.said.has(why)) return;
    this.said.add(why);
    this.hooks.log(
      `${this.source}: watching no more folders (${why}); new files elsewhere wait for the discovery sweep`,
    );
  }
}

function closeDir(dir: Dir): void {
  try {
    dir.closeSync();
  } catch {
    // already closed
  }
}

/** A folder's mtime in ms (its entries' last change), or -Infinity when it cannot be read. */
function folderMtime(folder: string): number {
  try {
    return statSync(folder).mtimeMs;
  } catch {
    return -Infinity;
  }
}
