import { performance } from "node:perf_hooks";
import type { Budget, IndexView, SourceCheckpoint } from "./types.js";

/** Checkpoints (or retained files) one read returns. */
const PAGE_ROWS = 256;

/**
 * How long one background batch spends reading what the index knows before it hands back. The
 * thread indexing runs on answers its other requests between batches (the broker's local
 * channel, an embedding host's calls): at 1M messages a source's 16,000–21,000 checkpoints took
 * 0.45–0.85 s read at once, one query per key, and a search arriving a second after a broker
 * started (when it indexed on the MCP thread) waited that long.
 */
export const LOAD_SLICE_MS = 20;

/** Orders strings as SQLite's BINARY collation orders their UTF-8 (JavaScript's `<` does not past U+D7FF). */
export function byteOrder(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export interface KnownVisitor {
  checkpoint(cp: SourceCheckpoint): void;
  /** Files whose raw bytes the index retains, visited after every checkpoint; omit to skip them. */
  file?(file: string): void;
}

/**
 * What the index already knows of one source, read a page at a time when a new process starts:
 * every checkpoint in key order, then (if the visitor takes them) every retained file. A
 * background batch reads for LOAD_SLICE_MS; a foreground backfill (`thorough`) reads to the end.
 */
export class KnownLoad {
  private afterKey = "";
  private afterFile = "";
  private phase: "checkpoints" | "files" | "done" = "checkpoints";

  constructor(private readonly source: string) {}

  get done(): boolean {
    return this.phase === "done";
  }

  /** Reads on for the budget's slice; true once everything has been visited. */
  step(view: IndexView, budget: Pick<Budget, "thorough">, visit: KnownVisitor): boolean {
    const until = budget.thorough ? Infinity : performance.now() + LOAD_SLICE_MS;
    do {
      if (this.phase === "checkpoints") {
        const page = view.checkpointsAfter(this.source, this.afterKey, PAGE_ROWS);
        for (const cp of page) visit.checkpoint(cp);
        if (page.length > 0) this.afterKey = page[page.length - 1]!.key;
        if (page.length < PAGE_ROWS) this.phase = visit.file ? "files" : "done";
      } else if (this.phase === "files") {
        const page = view.retainedFilesAfter(this.source, this.afterFile, PAGE_ROWS);
        for (const file of page) visit.file!(file);
        if (page.length > 0) this.afterFile = page[page.length - 1]!;
        if (page.length < PAGE_ROWS) this.phase = "done";
      }
    } while (this.phase !== "done" && performance.now() < until);
    return this.done;
  }
}
