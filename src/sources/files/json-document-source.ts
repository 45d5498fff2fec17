/**
 * A bounded, read-only reader of whole-file JSON documents that their CLI rewrites in place (a
 * session file holding every message so far): discovery in bounded steps, a round robin of stat
 * calls that finds changed files, and at most `maxFiles` documents read per tick, each whole.
 *
 * A document's checkpoint is its size, mtime and content hash. A rewritten document is read
 * again as the file's next version (epoch): records whose key it already holds with the same
 * text change nothing, a record whose text changed is kept beside the earlier one
 * (SourceRecord.epoch), and the new bytes are retained so export returns the newest. A document
 * that does not parse (being written) is counted malformed and read again once it changes; one
 * over `maxDocumentBytes` is counted oversized, its bytes retained. A deleted file keeps its
 * records.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type {
  Budget,
  ConversationRef,
  IndexView,
  SessionAlias,
  Source,
  SourceBatch,
  SourceCheckpoint,
  SourceProgress,
  SourceRecord,
} from "../types.js";
import { busyBatch, emptyBatch } from "../types.js";
import { KnownLoad } from "../known-load.js";
import { DEFAULT_MAX_LINE_BYTES } from "./jsonl-reader.js";
import { DISCOVERY_INTERVAL_MS } from "./jsonl-source.js";
import { BoundedWalker, type WalkRule } from "./walker.js";
import { isMissing } from "../shared/io-retry.js";
import { parseJson } from "../shared/json.js";

/** What one document holds. */
export interface JsonDocument {
  conversation: ConversationRef;
  records: SourceRecord[];
  /** Names under which the `session` filter finds the conversation (a title, a slug). */
  aliases?: string[];
}

export interface JsonDocumentSpec {
  name: string;
  agent: string;
  /** Directories the discovery walk starts from. */
  roots(): string[];
  rule: WalkRule;
  /** The document a parsed file holds, or null when the file is not one (counted skipped). */
  read(file: string, value: unknown): JsonDocument | null;
  /** Larger documents are not parsed (counted oversized; their bytes are retained). */
  maxDocumentBytes?: number;
}

/** What a document checkpoint's `state` column holds. */
interface DocumentState {
  v: 1;
  epoch: number;
  /** The content hash of the version read last. */
  hash: string;
  conversation: string | null;
}

const hashOf = (bytes: Buffer) => createHash("sha1").update(bytes).digest("hex");

function parseState(cp: SourceCheckpoint | undefined): DocumentState | null {
  const parsed = cp?.state ? parseJson(cp.state) : null;
  const state = parsed?.ok ? (parsed.value as DocumentState) : null;
  return state?.v === 1 ? state : null;
}

function statOf(file: string): { size: number; mtime: number } | null | "failed" {
  try {
    const stat = statSync(file);
    return stat.isFile() ? { size: stat.size, mtime: Math.floor(stat.mtimeMs) } : "failed";
  } catch (error) {
    return isMissing(error) ? null : "failed";
  }
}

export class JsonDocumentSource implements Source {
  readonly name: string;
  readonly agent: string;
  readonly retainsHistory = true;
  private readonly walker: BoundedWalker;
  /** Known documents, in the order change detection visits them. */
  private order: string[] = [];
  private readonly known = new Set<string>();
  private position = 0;
  private readonly backlog = new Set<string>();
  private sweepChanged = false;
  private cleanSweeps = 0;
  private doneBytes = 0;
  /** A new process: every document checkpointed earlier is watched from the start. */
  private readonly loading: KnownLoad;

  constructor(private readonly spec: JsonDocumentSpec) {
    this.name = spec.name;
    this.agent = spec.agent;
    this.walker = new BoundedWalker(() => spec.roots(), spec.rule);
    this.loading = new KnownLoad(spec.name);
  }

  close(): void {
    this.walker.close();
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const loaded =
      this.loading.done || this.loading.step(view, budget, { checkpoint: (cp) => this.register(cp.key) });
    if (!loaded) return busyBatch(this.progress());
    const batch = emptyBatch();
    if (this.walker.startIfDue(budget.now, DISCOVERY_INTERVAL_MS)) {
      for (const file of this.walker.step(budget.maxEntries, budget.now).files) this.register(file);
    }
    this.detectChanges(view, budget.maxEntries);
    let files = 0;
    let bytes = 0;
    for (const file of [...this.backlog]) {
      if (files >= budget.maxFiles || bytes >= budget.maxBytes) break;
      if (batch.records.length >= budget.maxRecords || budget.expired()) break;
      files += 1;
      bytes += this.readDocument(file, view, batch);
      this.backlog.delete(file);
    }
    const idle = this.backlog.size === 0 && !this.walker.active;
    batch.progress = this.progress();
    batch.idle = idle;
    return batch;
  }

  private progress(): SourceProgress {
    return {
      filesKnown: this.order.length,
      backlogFiles: this.backlog.size,
      backlogBytes: 0,
      doneBytes: this.doneBytes,
      discovered: this.walker.sweeps > 0,
      cleanSweeps: this.cleanSweeps,
    };
  }

  private register(file: string): void {
    if (this.known.has(file)) return;
    this.known.add(file);
    this.order.push(file);
  }

  /** One step of the round robin: at most `entries` documents compared with their checkpoints. */
  private detectChanges(view: IndexView, entries: number): void {
    const n = this.order.length;
    // No documents (yet): a finished discovery walk is a clean sweep, or a backfill never ends.
    if (n === 0 && !this.walker.active && this.walker.sweeps > 0) this.cleanSweeps += 1;
    for (let i = 0; i < Math.min(entries, n); i++) {
      const file = this.order[this.position++]!;
      if (!this.backlog.has(file) && this.changed(view, file)) {
        this.backlog.add(file);
        this.sweepChanged = true;
      }
      if (this.position >= n) {
        if (!this.sweepChanged && this.backlog.size === 0 && !this.walker.active) this.cleanSweeps += 1;
        this.sweepChanged = false;
        this.position = 0;
        break;
      }
    }
  }

  private changed(view: IndexView, file: string): boolean {
    const stat = statOf(file);
    // Gone (its records stay) or unreadable right now: nothing to read.
    if (stat === null || stat === "failed") return false;
    const cp = view.checkpoint(this.name, file);
    return !cp || cp.size !== stat.size || cp.mtime !== stat.mtime;
  }

  /** Reads one whole document; returns the bytes read. */
  private readDocument(file: string, view: IndexView, batch: SourceBatch): number {
    const stat = statOf(file);
    if (stat === null) return 0;
    let bytes: Buffer;
    try {
      if (stat === "failed") throw new Error("unreadable");
      bytes = readFileSync(file);
    } catch {
      batch.counters.unreadable = (batch.counters.unreadable ?? 0) + 1;
      return 0;
    }
    this.doneBytes += bytes.length;
    const cp = view.checkpoint(this.name, file);
    const state = parseState(cp);
    const hash = hashOf(bytes);
    const checkpoint = (next: DocumentState): void => {
      batch.checkpoints.push({
        source: this.name,
        key: file,
        offset: bytes.length,
        size: stat.size,
        mtime: stat.mtime,
        headHash: null,
        state: JSON.stringify(next),
      });
    };
    // Touched but not changed: only the checkpoint's mtime moves.
    if (state && state.hash === hash) {
      checkpoint(state);
      return bytes.length;
    }
    const epoch = state ? state.epoch + 1 : 0;
    const retain = (conversation: string | null, at: number | null) =>
      batch.rawChunks.push({
        source: this.name,
        file,
        conversation,
        offset: 0,
        bytes,
        epoch,
        firstAt: at,
        lastAt: at,
        dedupe: true,
      });
    if (bytes.length > (this.spec.maxDocumentBytes ?? DEFAULT_MAX_LINE_BYTES)) {
      batch.counters.oversized += 1;
      retain(state?.conversation ?? null, null);
      checkpoint({ v: 1, epoch, hash, conversation: state?.conversation ?? null });
      return bytes.length;
    }
    const parsed = parseJson(bytes.toString("utf8"));
    if (!parsed.ok) {
      // Cut short while being written, or damaged: read again once it changes.
      batch.counters.malformed += 1;
      checkpoint(state ?? { v: 1, epoch: 0, hash: "", conversation: null });
      return bytes.length;
    }
    const document = this.spec.read(file, parsed.value);
    if (!document) {
      batch.counters.skipped += 1;
      checkpoint({ v: 1, epoch, hash, conversation: null });
      return bytes.length;
    }
    batch.conversations.push(document.conversation);
    for (const alias of document.aliases ?? []) {
      const entry: SessionAlias = { alias, session: document.conversation.session ?? "", source: this.name };
      if (alias && entry.session) batch.aliases.push(entry);
    }
    for (const record of document.records) batch.records.push(epoch > 0 ? { ...record, epoch } : record);
    const times = document.records.map((r) => r.at);
    retain(document.conversation.id, times.length > 0 ? Math.min(...times) : null);
    const chunk = batch.rawChunks[batch.rawChunks.length - 1]!;
    chunk.lastAt = times.length > 0 ? Math.max(...times) : null;
    checkpoint({ v: 1, epoch, hash, conversation: document.conversation.id });
    return bytes.length;
  }
}
