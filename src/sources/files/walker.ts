import { opendirSync, type Dir } from "node:fs";
import path from "node:path";

/** What a walker does with one directory entry. */
export type WalkDecision = "descend" | "file" | "skip";

export interface WalkRule {
  /**
   * Decides for one entry. `depth` is 0 for entries directly under a root. Only directories
   * may descend; symbolic links are never followed (a CLI's folders do not need them, and
   * following them could loop).
   */
  (entry: {
    name: string;
    path: string;
    depth: number;
    isDirectory: boolean;
    isFile: boolean;
    root: string;
  }): WalkDecision;
}

interface Frame {
  dir: Dir;
  depth: number;
  root: string;
}

/** A folder a sweep opened: a root, or one the rule descended into; its entries have `depth`. */
export interface WalkedFolder {
  path: string;
  root: string;
  depth: number;
}

/**
 * A resumable, bounded directory walk: each `step(maxEntries)` examines at most that many
 * entries (the spec's 32 per tick) and returns the files it registered. Open directory
 * handles are kept between steps, so a large home takes several ticks and never one long one.
 */
export class BoundedWalker {
  private stack: Frame[] = [];
  private pendingRoots: string[] = [];
  private running = false;
  /** Time the current sweep started, or the last one finished. */
  lastSweepStartedAt = 0;
  lastSweepFinishedAt = 0;
  sweeps = 0;
  /** Folders this sweep could not open or list, and those of the last complete sweep. */
  private failing: string[] = [];
  private failed: string[] = [];
  /** A sweep was asked for (a filesystem watch saw more than it could say): start one now. */
  private requested = false;

  constructor(
    private readonly roots: () => string[],
    private readonly rule: WalkRule,
  ) {}

  get active(): boolean {
    return this.running;
  }

  /** Starts a new sweep (after `intervalMs` since the last one started, or when asked), unless one runs. */
  startIfDue(now: number, intervalMs: number): boolean {
    if (this.running) return true;
    if (!this.requested && this.sweeps > 0 && now - this.lastSweepStartedAt < intervalMs) return false;
    this.requested = false;
    this.pendingRoots = [...this.roots()];
    this.stack = [];
    this.failing = [];
    this.running = true;
    this.lastSweepStartedAt = now;
    return true;
  }

  /**
   * The next startIfDue starts a sweep whatever the interval; asked while one runs (it may have
   * passed the change already), another starts when it ends.
   */
  requestSweep(): void {
    this.requested = true;
  }

  /** Examines at most `maxEntries` entries; returns registered file paths and the folders opened. */
  step(maxEntries: number, now: number): { files: string[]; folders: WalkedFolder[]; done: boolean } {
    const files: string[] = [];
    const folders: WalkedFolder[] = [];
    let examined = 0;
    while (this.running && examined < maxEntries) {
      const frame = this.stack[this.stack.length - 1];
      if (!frame) {
        const root = this.pendingRoots.shift();
        if (root === undefined) {
          this.running = false;
          this.sweeps += 1;
          this.lastSweepFinishedAt = now;
          this.failed = this.failing;
          break;
        }
        const dir = this.openDir(root);
        if (dir) {
          this.stack.push({ dir, depth: 0, root });
          folders.push({ path: root, root, depth: 0 });
        }
        continue;
      }
      let entry;
      try {
        entry = frame.dir.readSync();
      } catch {
        this.failing.push(frame.dir.path);
        entry = null;
      }
      if (!entry) {
        closeDir(frame.dir);
        this.stack.pop();
        continue;
      }
      examined += 1;
      const full = path.join(frame.dir.path, entry.name);
      const decision = this.rule({
        name: entry.name,
        path: full,
        depth: frame.depth,
        isDirectory: entry.isDirectory(),
        isFile: entry.isFile(),
        root: frame.root,
      });
      if (decision === "file" && entry.isFile()) files.push(full);
      else if (decision === "descend" && entry.isDirectory()) {
        const dir = this.openDir(full);
        if (dir) {
          this.stack.push({ dir, depth: frame.depth + 1, root: frame.root });
          folders.push({ path: full, root: frame.root, depth: frame.depth + 1 });
        }
      }
    }
    return { files, folders, done: !this.running };
  }

  /** Folders the last complete sweep could not open or list (a root that is not there is not one). */
  unreadable(): string[] {
    return this.failed;
  }

  /** Opens a folder, noting one that is there but cannot be opened (EACCES, EIO, a file in its place). */
  private openDir(dir: string): Dir | null {
    try {
      return opendirSync(dir, { bufferSize: 32 });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") this.failing.push(dir);
      return null;
    }
  }

  close(): void {
    for (const frame of this.stack) closeDir(frame.dir);
    this.stack = [];
    this.running = false;
  }
}

function closeDir(dir: Dir): void {
  try {
    dir.closeSync();
  } catch {
    // already closed
  }
}
