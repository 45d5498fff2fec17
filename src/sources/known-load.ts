import type { Budget, IndexView, SourceCheckpoint } from "./types.js";

/** Checkpoints (or retained files) one read returns. */
const PAGE_ROWS = 256;

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
 * background batch reads until its time is up (a page at least), a foreground backfill
 * (`thorough`) to the end. Slices of 20 ms kept a search from waiting behind the load while the
 * broker indexed on the thread that answers requests; on the broker's own thread
 * (app/broker-thread.ts) they only put off its first look for new sessions.
 */
export class KnownLoad {
  private afterKey = "";
  private afterFile = "";
  private phase: "checkpoints" | "files" | "done" = "checkpoints";

  constructor(private readonly source: string) {}

  get done(): boolean {
    return this.phase === "done";
  }

  /** Reads on until the budget's time is up; true once everything has been visited. */
  step(view: IndexView, budget: Pick<Budget, "thorough" | "expired">, visit: KnownVisitor): boolean {
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
    } while (this.phase !== "done" && (budget.thorough === true || !budget.expired()));
    return this.done;
  }
}
