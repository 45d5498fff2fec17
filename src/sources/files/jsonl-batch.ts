/** Batch bookkeeping of the JSONL base: counters, coverage's unreadable paths, rewinding a failed poll, chunk times. */
import type { RawChunk, SourceBatch, SourceProgress } from "../types.js";
import type { Tracked } from "./jsonl-state.js";

/** A file found shrunk or rewritten, counted per source for `recall status`. */
export function countRewritten(batch: SourceBatch): void {
  batch.counters.rewritten = (batch.counters.rewritten ?? 0) + 1;
}

/**
 * Counts a file once for each size and mtime at which it cannot be used: unreadable (it failed to
 * open or read) or malformed (its bytes do not decode).
 */
export function countUnreadable(
  t: Tracked,
  batch: SourceBatch,
  size: number,
  mtime: number,
  as: "unreadable" | "malformed",
): void {
  const at = `${size}:${mtime}`;
  if (t.unreadable !== at) batch.counters[as] = (batch.counters[as] ?? 0) + 1;
  t.unreadable = at;
}

/** The folders and files that cannot be read now: how many, and the first few by name. */
export function unreadablePaths(
  folders: readonly string[],
  files: ReadonlyMap<string, string>,
): SourceProgress["unreadable"] {
  const count = folders.length + files.size;
  if (count === 0) return undefined;
  const paths = [...folders];
  for (const file of files.values()) {
    if (paths.length >= UNREADABLE_NAMED) break;
    paths.push(file);
  }
  return { count, paths: paths.slice(0, UNREADABLE_NAMED) };
}

/** How many unreadable paths coverage names (the count covers them all). */
const UNREADABLE_NAMED = 20;

/** Where a batch's lists and counters stood before one file's poll. */
export interface BatchMark {
  lengths: Map<unknown[], number>;
  counters: SourceBatch["counters"];
}

export function markBatch(batch: SourceBatch): BatchMark {
  batch.titleClaims ??= [];
  const lists: unknown[][] = [
    batch.records,
    batch.conversations,
    batch.aliases,
    batch.rawChunks,
    batch.checkpoints,
    batch.resets,
    batch.titleClaims,
  ];
  return { lengths: new Map(lists.map((list) => [list, list.length])), counters: { ...batch.counters } };
}

/** Drops what a failed poll added, so nothing of the file is written without its checkpoint. */
export function rewindBatch(batch: SourceBatch, mark: BatchMark): void {
  for (const [list, length] of mark.lengths) list.splice(length);
  batch.counters = { ...mark.counters };
}

/** Sets each raw chunk's first/last record time from the records whose lines start in it. */
export function assignTimes(chunks: RawChunk[], from: number, times: { offset: number; at: number }[]): void {
  if (times.length === 0 || chunks.length <= from) return;
  const own = chunks.slice(from);
  for (const { offset, at } of times) {
    let lo = 0;
    let hi = own.length - 1;
    let hit = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = own[mid]!;
      if (offset < c.offset) hi = mid - 1;
      else if (offset >= c.offset + c.bytes.length) lo = mid + 1;
      else {
        hit = mid;
        break;
      }
    }
    if (hit < 0) continue;
    const c = own[hit]!;
    c.firstAt = c.firstAt === null ? at : Math.min(c.firstAt, at);
    c.lastAt = c.lastAt === null ? at : Math.max(c.lastAt, at);
  }
}
