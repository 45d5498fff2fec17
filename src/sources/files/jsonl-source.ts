import { lstatSync, statSync } from "node:fs";
import path from "node:path";
import { SqliteError } from "better-sqlite3";
import { performance } from "node:perf_hooks";
import type {
  Budget,
  ConversationRef,
  IndexView,
  RawChunk,
  RetainedExtent,
  Source,
  SourceBatch,
  SourceCheckpoint,
  SourceRecord,
  TitleClaim,
  WatchHooks,
} from "../types.js";
import { busyBatch, emptyBatch } from "../types.js";
import { CallbackByteSource, FileByteSource, ZstdByteSource, type ByteSource } from "./byte-source.js";
import {
  HEAD_BYTES,
  headHash,
  parseHeadHash,
  readHead,
  readRange,
  sameHead,
  sameTail,
  tailHash,
} from "./head.js";
import { DEFAULT_MAX_LINE_BYTES, readLines, type JsonlLine } from "./jsonl-reader.js";
import { FolderWatch } from "./folder-watch.js";
import { KnownLoad } from "../known-load.js";
import { BoundedWalker, type WalkRule } from "./walker.js";
import { ioRetryAt, isMissing, isSystemError } from "../shared/io-retry.js";
import {
  addCandidate,
  isCompressed,
  openBytes,
  orderedCandidates,
  parseState,
  readFromStart,
  type FileState,
  type Found,
  type Live,
  type Tracked,
} from "./jsonl-state.js";
import {
  assignTimes,
  countRewritten,
  countUnreadable,
  markBatch,
  rewindBatch,
  unreadablePaths,
} from "./jsonl-batch.js";

/** New-file discovery repeats this long after the previous sweep started (the spec's 30 s). */
export const DISCOVERY_INTERVAL_MS = 30_000;
/** One readLines call reads at most this much before the loop checks its budget again. */
const ROUND_BYTES = 256 * 1024;
/**
 * At most this many files keep their parser (and decoder) between polls. Another file resumes
 * exactly from its checkpoint, which holds all the state a parser needs; this bounds memory
 * however many large files a first backfill reads in turn.
 */
export const MAX_LIVE_FILES = 16;
/** A file unchanged this long is not being written to: nothing read from it is held back. */
export const SETTLE_MS = 60_000;
/** How stale a tick's backlog-bytes figure may be while files wait. */
const PROGRESS_RECOUNT_MS = 1000;
/** A backlog this short is summed on every tick. */
const CHEAP_BACKLOG = 64;

/** Where a parser puts what it found in the lines it was given. */
export interface JsonlSink {
  record(record: SourceRecord): void;
  conversation(ref: ConversationRef): void;
  alias(alias: string, session: string): void;
  titleClaim(claim: TitleClaim): void;
  skipped(count?: number): void;
  malformed(count?: number): void;
  /**
   * Another line of a record just given to `record` (a merged response's later lines): its raw
   * chunk gets the record's time, so `recall forget --since/--until` finds those bytes too.
   */
  lineOf(offset: number, at: number): void;
}

/**
 * One file's parser: fed complete lines in order. It may hold records back (a streamed
 * Claude response still open) and report where the earliest held line starts: the checkpoint
 * then stays there, so a new process re-reads those lines instead of losing them.
 */
export interface JsonlParser {
  /** The conversation this file's raw bytes belong to. */
  readonly conversationId: string;
  line(line: JsonlLine, sink: JsonlSink): void;
  /**
   * No more complete lines right now. `settled` (the file unchanged for SETTLE_MS, or gone):
   * emit everything held. Otherwise a record that later lines may still extend (a streamed
   * Claude response) may be emitted as it stands and stay held, to be emitted again, whole,
   * under the same key.
   */
  drain(sink: JsonlSink, settled: boolean): void;
  /** Offset of the earliest line whose records are still held, or null. */
  heldFrom(): number | null;
  /** Plain-JSON state saved in the checkpoint (null when a fresh parser at the checkpoint offset is exact). */
  snapshot(): unknown;
  /**
   * Plain-JSON facts the lines read so far taught that hold whichever offset reading resumes
   * from (a title, a project), saved in the checkpoint and given back to every parser rebuilt
   * for the file: a snapshot is dropped when reading resumes before the read end (held lines).
   */
  learned?(): unknown;
}

export interface ParserContext {
  key: string;
  path: string;
  /** Modification time of the file, a fallback time for records without one. */
  mtimeMs: number;
  /** The first bytes of the content (up to 64 KiB), when the spec asked for them. */
  head?: Buffer;
  /** What an earlier parser of this content had learned (JsonlParser.learned). */
  learned?: unknown;
}

export interface JsonlSourceSpec {
  name: string;
  agent: string;
  /** Directories the discovery walk starts from. */
  roots: () => string[];
  rule: WalkRule;
  /**
   * The logical file a path belongs to (twins such as a Codex rollout and its `.zst` share one
   * key) and its priority among them (lower wins), or null to ignore the path.
   */
  identify(path: string): { key: string; priority: number } | null;
  createParser(context: ParserContext, state: unknown, offset: number): JsonlParser;
  /** Whether a parser for this path needs the content's first bytes (to learn its session). */
  needsHead?(path: string): boolean;
  /**
   * The parser's snapshot stays true when reading resumes before the read end (held lines read
   * again): it holds nothing those lines would add twice. Otherwise it is dropped then.
   */
  snapshotSurvivesReread?: boolean;
  maxLineBytes?: number;
}

/**
 * An incremental, bounded reader of JSONL transcripts (Claude Code, Codex): discovery in
 * bounded steps, fair polling of registered files, byte-offset checkpoints with their parser
 * state, raw retention of every byte read, and re-reading of replaced files. Everything is
 * opened read-only; nothing is written, renamed or repaired.
 */
export class JsonlFileSource implements Source {
  readonly name: string;
  readonly agent: string;
  readonly retainsHistory = true;
  private readonly walker: BoundedWalker;
  private readonly tracked = new Map<string, Tracked>();
  /** Keys with bytes to read, in the order they are served (fair round robin). */
  private readonly backlog = new Set<string>();
  /** Keys whose parser is kept, least recently polled first. */
  private readonly liveOrder = new Set<string>();
  private statOrder: string[] = [];
  private statPosition = 0;
  private sweepFoundChange = false;
  private cleanSweeps = 0;
  private readonly known: KnownLoad;
  private doneBytes = 0;
  /** Files that failed to open or read on their last poll (key: path), named in coverage. */
  private readonly unreadableFiles = new Map<string, string>();
  /** Folders the last complete discovery sweep could not open or list. */
  private unreadableFolders: string[] = [];
  private folderWatch: FolderWatch | null = null;

  constructor(private readonly spec: JsonlSourceSpec) {
    this.name = spec.name;
    this.agent = spec.agent;
    this.walker = new BoundedWalker(spec.roots, spec.rule);
    this.known = new KnownLoad(spec.name);
  }

  close(): void {
    this.folderWatch?.close();
    this.folderWatch = null;
    this.walker.close();
    for (const t of this.tracked.values()) this.closeLive(t);
  }

  /**
   * Watches the folders the discovery walk opens (see FolderWatch), from the next sweep on, and
   * at once those of the files the index knows.
   */
  watch(hooks: WatchHooks): void {
    this.folderWatch?.close();
    this.folderWatch = new FolderWatch(this.name, hooks);
    if (this.known.done) this.watchKnownFolders();
    this.walker.requestSweep();
  }

  /** Watches the folders of the files the index knows (FolderWatch.addFoldersOf). */
  private watchKnownFolders(): void {
    const tracked = this.tracked;
    function* files() {
      for (const t of tracked.values())
        if (t.file !== null && !t.gone) yield { path: t.file, mtime: t.mtime };
    }
    const isKnown = (file: string) => {
      const key = this.spec.identify(file)?.key;
      return key !== undefined && tracked.has(key);
    };
    this.folderWatch?.addFoldersOf(files(), this.spec.roots(), isKnown);
  }

  private closeLive(t: Tracked): void {
    t.live?.bytes?.close();
    t.live = null;
    this.liveOrder.delete(t.key);
  }

  /** Keeps a file's parser for its next poll, evicting the least recently polled past the bound. */
  private keepLive(t: Tracked): void {
    this.liveOrder.delete(t.key);
    this.liveOrder.add(t.key);
    while (this.liveOrder.size > MAX_LIVE_FILES) {
      const oldest = this.liveOrder.values().next().value as string;
      const evicted = this.tracked.get(oldest);
      if (evicted) this.closeLive(evicted);
      else this.liveOrder.delete(oldest);
    }
  }

  private track(key: string): Tracked {
    let t = this.tracked.get(key);
    if (!t) {
      t = {
        key,
        file: null,
        priority: 0,
        twins: null,
        live: null,
        size: null,
        mtime: null,
        gone: false,
        pending: 0,
        unreadable: null,
        retryAt: 0,
        ioFailures: 0,
      };
      this.tracked.set(key, t);
      this.statOrder.push(key);
    }
    return t;
  }

  private register(file: string): void {
    const id = this.spec.identify(file);
    if (!id) return;
    const known = this.tracked.get(id.key);
    const t = this.track(id.key);
    if (addCandidate(t, file, id.priority) && (!known || t.gone)) this.backlog.add(id.key);
  }

  /**
   * Files this index already knows (checkpoints, and retained files a CLI may have deleted), a
   * slice per batch; nothing else happens until every one is known, so discovery never takes a
   * known file for a new one.
   */
  private readonly knownVisitor = {
    checkpoint: (cp: SourceCheckpoint) => {
      const state = parseState(cp);
      const t = this.track(cp.key);
      if (!state) return;
      addCandidate(t, state.path, this.spec.identify(state.path)?.priority ?? 0);
      this.setGone(t, state.gone);
      t.size = cp.size;
      t.mtime = cp.mtime;
      // A file the last process had not finished (or held lines in, or whose parser holds a
      // record until the file settles) is read on first.
      const unfinished = isCompressed(state.path)
        ? !state.complete
        : state.readEnd < (cp.size ?? 0) || cp.offset < state.readEnd;
      if ((unfinished || state.unsettled) && !state.gone) this.backlog.add(cp.key);
    },
    file: (file: string) => {
      const id = this.spec.identify(file);
      if (!id) return;
      const fresh = !this.tracked.has(id.key);
      const t = this.track(id.key);
      addCandidate(t, file, id.priority);
      if (fresh) this.backlog.add(id.key);
    },
  };

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    if (!this.known.done) {
      if (!this.known.step(view, budget, this.knownVisitor)) return busyBatch(this.progress(false));
      this.watchKnownFolders();
    }
    const batch = emptyBatch();

    // Discovery: at most maxEntries directory entries per tick, the folders the watch lists
    // first (where a new session is), then the walk, again 30 s after its last sweep.
    const listed = this.folderWatch?.list(budget.maxEntries) ?? 0;

    // What the watch saw since the last batch, before the sweep: a new file is read now.
    if (this.folderWatch) this.considerChanges(this.folderWatch, budget);

    if (listed < budget.maxEntries && this.walker.startIfDue(budget.now, DISCOVERY_INTERVAL_MS)) {
      const step = this.walker.step(budget.maxEntries - listed, budget.now);
      for (const file of step.files) this.register(file);
      for (const folder of step.folders) this.folderWatch?.add(folder);
      if (step.done) {
        this.noteUnreadableFolders(batch);
        this.folderWatch?.swept();
      }
    }

    // Change detection: stat a bounded slice of registered files, round robin (not while
    // enough files wait to fill this tick: they are read first, and the sweep resumes after).
    if (this.backlog.size < budget.maxFiles) this.statSlice(budget.maxEntries, budget.now);

    // Polling: read from at most maxFiles files with backlog, in turn.
    const served: string[] = [];
    for (const key of this.backlog) {
      if (served.length >= budget.maxFiles) break;
      served.push(key);
    }
    let bytesLeft = budget.maxBytes;
    for (let i = 0; i < served.length; i++) {
      const key = served[i]!;
      const t = this.tracked.get(key)!;
      const share = Math.max(64 * 1024, Math.floor(bytesLeft / (served.length - i)));
      const recordsLeft = budget.maxRecords - batch.records.length;
      if (recordsLeft <= 0 || (i > 0 && budget.expired())) break;
      const mark = markBatch(batch);
      let used: { bytes: number; more: boolean };
      try {
        used = this.poll(t, view, batch, {
          bytes: share,
          records: recordsLeft,
          expired: budget.expired,
          now: budget.now,
        });
      } catch (error) {
        // The index's own failures stop the batch; a file that cannot be read stops only itself.
        if (error instanceof SqliteError) throw error;
        rewindBatch(batch, mark);
        this.unreadable(t, batch, error, budget.now);
        used = { bytes: 0, more: false };
      }
      bytesLeft -= used.bytes;
      this.backlog.delete(key);
      if (used.more) this.backlog.add(key); // to the end of the queue
    }

    batch.idle = !this.walker.active && this.backlog.size === 0 && !this.folderWatch?.waiting;
    batch.progress = this.progress(batch.idle);
    return batch;
  }

  /**
   * Changed entries the watch reported, judged by the walk's own rule (at most maxEntries per
   * batch, as discovery): a file it would register is registered (or, known, polled when it
   * changed); a folder it would descend into is watched and its entries taken. A burst the
   * watch could not hold starts a sweep now.
   */
  private considerChanges(watch: FolderWatch, budget: Budget): void {
    const changes = watch.take(budget.maxEntries);
    if (changes === "sweep") return this.walker.requestSweep();
    for (const entry of changes) {
      let stat;
      try {
        stat = lstatSync(entry.path);
      } catch {
        continue; // gone again: polling notices a deleted file
      }
      const decision = this.spec.rule({
        name: path.basename(entry.path),
        path: entry.path,
        depth: entry.depth,
        isDirectory: stat.isDirectory(),
        isFile: stat.isFile(),
        root: entry.root,
      });
      if (decision === "file" && stat.isFile()) {
        this.register(entry.path);
        const key = this.spec.identify(entry.path)?.key;
        const t = key === undefined ? undefined : this.tracked.get(key);
        if (t && !this.backlog.has(t.key) && this.changed(t, budget.now)) this.backlog.add(t.key);
      } else if (decision === "descend" && stat.isDirectory()) {
        watch.addNew({ path: entry.path, root: entry.root, depth: entry.depth + 1 });
      }
    }
  }

  /** After a sweep: folders it could not open or list, counted when newly so. */
  private noteUnreadableFolders(batch: SourceBatch): void {
    const now = this.walker.unreadable();
    const fresh = now.filter((dir) => !this.unreadableFolders.includes(dir)).length;
    if (fresh > 0) batch.counters.unreadable = (batch.counters.unreadable ?? 0) + fresh;
    this.unreadableFolders = now;
  }

  private statSlice(maxEntries: number, now: number): void {
    const n = this.statOrder.length;
    if (n === 0) {
      if (this.backlog.size === 0 && !this.walker.active) this.cleanSweeps += 1;
      return;
    }
    for (let i = 0; i < Math.min(maxEntries, n); i++) {
      if (this.statPosition >= n) this.statPosition = 0;
      const key = this.statOrder[this.statPosition++]!;
      const t = this.tracked.get(key)!;
      if (!this.backlog.has(key) && this.changed(t, now)) {
        this.backlog.add(key);
        this.sweepFoundChange = true;
      }
      if (this.statPosition >= n) {
        // A complete polling sweep: clean when it found nothing and nothing waits.
        if (!this.sweepFoundChange && this.backlog.size === 0 && !this.walker.active) this.cleanSweeps += 1;
        this.sweepFoundChange = false;
        this.statPosition = 0;
      }
    }
  }

  /**
   * A file that failed to read: what it produced this poll was rewound. Bytes that do not decode
   * or parse wait until the file changes. A failed system call (EIO, EMFILE, a file being
   * replaced) may pass by itself, so the file is tried again, unchanged, after a backoff:
   * otherwise it would stay silently stale until a restart. Counted malformed once per size and
   * mtime either way.
   */
  private unreadable(t: Tracked, batch: SourceBatch, error: unknown, now: number): void {
    this.closeLive(t);
    const found = this.locate(t);
    if (!found) return;
    t.size = found.size;
    t.mtime = found.mtime;
    t.pending = 0;
    if (isSystemError(error)) {
      t.ioFailures += 1;
      t.retryAt = ioRetryAt(now, t.ioFailures);
      // A file that cannot be opened or read is unreadable, not malformed: named until it reads.
      this.unreadableFiles.set(t.key, found.path);
      countUnreadable(t, batch, found.size, found.mtime, "unreadable");
      return;
    }
    countUnreadable(t, batch, found.size, found.mtime, "malformed");
  }

  /** Cheap check: does the file look different from its last checkpoint, or is a retry due? */
  private changed(t: Tracked, now: number): boolean {
    const found = this.locate(t);
    if (!found) return !t.gone;
    if (t.gone) return true;
    if (t.retryAt > 0 && now >= t.retryAt) {
      t.retryAt = 0;
      return true;
    }
    return found.size !== t.size || found.mtime !== t.mtime;
  }

  /** The best existing candidate path of a logical file. */
  private locate(t: Tracked): Found | null {
    for (const file of orderedCandidates(t)) {
      try {
        const stat = statSync(file);
        if (stat.isFile()) return { path: file, size: stat.size, mtime: Math.floor(stat.mtimeMs) };
      } catch {
        // gone: try the next twin
      }
    }
    return null;
  }

  /** The last count of backlog bytes, and when it was taken. */
  private counted = { bytesAt: -Infinity, backlogBytes: 0 };
  /** Tracked files whose source is gone, kept as files come and go: counting them per tick was O(files). */
  private goneFiles = 0;

  private setGone(t: Tracked, gone: boolean): void {
    if (t.gone !== gone) this.goneFiles += gone ? 1 : -1;
    t.gone = gone;
    if (gone) this.unreadableFiles.delete(t.key); // nothing left to read
  }

  private progress(idle: boolean) {
    // Counting walks the backlog: per tick, a first backfill of 40k files would spend much of
    // its time here. A count is redone at most every PROGRESS_RECOUNT_MS, and on every tick
    // once it is cheap (a short backlog) or final (idle).
    const now = performance.now();
    const counted = this.counted;
    if (this.backlog.size <= CHEAP_BACKLOG || idle || now - counted.bytesAt >= PROGRESS_RECOUNT_MS) {
      let backlogBytes = 0;
      for (const key of this.backlog) backlogBytes += this.tracked.get(key)?.pending ?? 0;
      counted.backlogBytes = backlogBytes;
      counted.bytesAt = now;
    }
    return {
      filesKnown: this.tracked.size,
      backlogFiles: this.backlog.size,
      backlogBytes: counted.backlogBytes,
      doneBytes: this.doneBytes,
      discovered: this.walker.sweeps > 0,
      cleanSweeps: this.cleanSweeps,
      gone: this.goneFiles,
      unreadable: unreadablePaths(this.unreadableFolders, this.unreadableFiles),
    };
  }

  /**
   * Reads one logical file within its share of the batch. Returns the bytes read and whether
   * more is waiting.
   */
  private poll(
    t: Tracked,
    view: IndexView,
    batch: SourceBatch,
    limits: { bytes: number; records: number; expired: () => boolean; now: number },
  ): { bytes: number; more: boolean } {
    const cp = view.checkpoint(this.name, t.key);
    const state = parseState(cp);
    const found = this.locate(t);

    let live = t.live;
    const valid =
      live !== null &&
      state !== null &&
      cp !== undefined &&
      cp.offset === live.committedOffset &&
      state.epoch === live.state.epoch &&
      state.readEnd === live.readEnd;
    if (!valid) {
      this.closeLive(t);
      live = null;
    }
    const opened = found
      ? this.reopenPresent(t, view, batch, cp, state, live, found)
      : this.reopenDeleted(t, view, batch, cp, state, live);
    if (!opened) return { bytes: 0, more: false };
    t.live = opened.live;
    return this.readOpened(t, batch, opened, found !== null, limits);
  }

  /**
   * A file the CLI deleted. Its records stay. Bytes retained but not parsed yet (after a
   * rebuild, or lines held at the deletion) are replayed from the retained chunks; null when
   * there are none.
   */
  private reopenDeleted(
    t: Tracked,
    view: IndexView,
    batch: SourceBatch,
    cp: SourceCheckpoint | undefined,
    state: FileState | null,
    live: Live | null,
  ): Opened | null {
    const rawFile = state?.rawFile ?? t.file ?? t.key;
    // A parser that kept a record until its file settled (the snapshot) drains it now.
    const holding = state?.unsettled === true && cp !== undefined;
    const extent =
      view.retainedExtent(this.name, rawFile, 0) ??
      (holding ? { epoch: state.epoch, start: cp.offset, end: cp.offset } : null);
    const sameEpoch = state !== null && cp !== undefined && extent !== null && state.epoch === extent.epoch;
    if (!extent || (sameEpoch && cp.offset >= extent.end && !live?.parser.heldFrom() && !holding)) {
      if (state && cp && !state.gone) {
        batch.checkpoints.push({ ...cp, state: JSON.stringify({ ...state, gone: true }) });
      }
      this.closeLive(t);
      this.setGone(t, true);
      t.pending = 0;
      return null;
    }
    const epoch = extent.epoch;
    const bytes = new CallbackByteSource(extent.end, (position, length) =>
      view.readRetained(this.name, rawFile, epoch, position, length),
    );
    const storedSize = t.size ?? 0;
    const mtime = t.mtime ?? 0;
    if (live && (live.path !== rawFile || live.state.epoch !== epoch)) {
      this.closeLive(t);
      live = null;
    }
    live?.bytes?.close();
    live ??= this.start(t, view, batch, sameEpoch ? cp : undefined, sameEpoch ? state : null, {
      path: rawFile,
      rawFile,
      epoch,
      rawEnd: extent.end,
      mtime,
      bytes,
    });
    live.bytes = bytes;
    live.state.gone = true;
    if (live.readEnd < extent.start) {
      // The oldest chunks were pruned by the retention bound: replay what is left, unless
      // every byte was read once already (only held lines remain, their start pruned, and
      // their record was emitted as it stood): from their middle they would make a second one.
      live.readEnd = sameEpoch && state.readEnd >= extent.end ? extent.end : extent.start;
      live.discarding = null;
    }
    return { live, bytes, storedSize, mtime, head: cp?.headHash ?? null, replayEnd: extent.end };
  }

  /**
   * A file that is there: unchanged since its checkpoint (null), appended to (read on from the
   * checkpoint), or shrunk or rewritten (read again from its start as a new version).
   */
  private reopenPresent(
    t: Tracked,
    view: IndexView,
    batch: SourceBatch,
    cp: SourceCheckpoint | undefined,
    state: FileState | null,
    live: Live | null,
    found: Found,
  ): Opened | null {
    let bytes: ByteSource;
    let head: string | null = cp?.headHash ?? null;
    this.setGone(t, false);
    const reuse =
      live?.bytes instanceof ZstdByteSource &&
      live.path === found.path &&
      live.storedSize === found.size &&
      live.storedMtime === found.mtime;
    if (reuse) {
      bytes = live!.bytes!;
    } else {
      live?.bytes?.close();
      if (live) live.bytes = null;
      try {
        bytes = openBytes(found.path);
      } catch (error) {
        // Deleted since it was listed: the next poll sees it gone. Anything else (EACCES: a
        // transcript another user owns) is unreadable(): counted, retried after a backoff, and
        // no longer taken as a change on every sweep, which kept a backfill from ever ending.
        if (isMissing(error)) return null;
        throw error;
      }
    }
    const unchanged =
      state !== null &&
      cp !== undefined &&
      cp.size === found.size &&
      cp.mtime === found.mtime &&
      state.path === found.path &&
      !state.gone &&
      !state.unsettled &&
      (isCompressed(found.path) ? state.complete : state.readEnd >= found.size && cp.offset >= state.readEnd);
    if (unchanged && !live) {
      bytes.close();
      t.size = found.size;
      t.mtime = found.mtime;
      t.pending = 0;
      return null;
    }
    live ??= this.start(t, view, batch, cp, state, {
      path: found.path,
      rawFile: state?.rawFile ?? found.path,
      epoch: state?.epoch ?? 0,
      rawEnd: state?.rawEnd ?? 0,
      mtime: found.mtime,
      bytes,
    });
    live.bytes = bytes;
    live.storedSize = found.size;
    live.storedMtime = found.mtime;
    if (!reuse) {
      // A shrunk or replaced file is re-read from the start in a new epoch.
      const shrunk = !isCompressed(found.path) && bytes.size !== null && bytes.size < live.readEnd;
      const rewritten =
        shrunk ||
        !sameHead(bytes, cp?.headHash) ||
        (!isCompressed(found.path) && state?.path === found.path && !sameTail(bytes, state.tail));
      if (cp && rewritten) {
        live = this.replace(t, live, batch, found.path, bytes, found.mtime);
        head = null;
      }
      if ((parseHeadHash(head)?.length ?? 0) < HEAD_BYTES) {
        const first = readHead(bytes, HEAD_BYTES);
        if (first.length > 0) head = headHash(first);
      }
    }
    live.path = found.path;
    live.state.path = found.path;
    live.state.gone = false;
    return { live, bytes, storedSize: found.size, mtime: found.mtime, head, replayEnd: null };
  }

  /** Reads bounded rounds of an opened file, then checkpoints where its parser stands. */
  private readOpened(
    t: Tracked,
    batch: SourceBatch,
    opened: Opened,
    present: boolean,
    limits: { bytes: number; records: number; expired: () => boolean; now: number },
  ): { bytes: number; more: boolean } {
    const { live, bytes, storedSize, mtime, head, replayEnd } = opened;
    // Read bounded rounds until the share, the records budget or the time is used.
    const sink = this.sink(batch, live.state.epoch);
    const startRecords = batch.records.length;
    const rawStart = batch.rawChunks.length;
    let used = 0;
    let exhausted = false;
    const maxLine = this.spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    for (;;) {
      const result = readLines(bytes, {
        offset: live.readEnd,
        maxBytes: Math.min(ROUND_BYTES, Math.max(1, limits.bytes - used)),
        maxLineBytes: maxLine,
        discarding: live.discarding,
        keepRaw: true,
      });
      used += result.bytesRead;
      for (const line of result.lines) {
        sink.lineOffset = line.offset;
        sink.counting = line.offset + line.length > live.countedEnd;
        live.parser.line(line, sink);
      }
      for (const over of result.oversized) {
        if (over.offset + over.length > live.countedEnd) batch.counters.oversized += 1;
      }
      for (const piece of result.raw) this.retain(batch, live, piece.offset, piece.bytes);
      live.readEnd = result.nextOffset;
      live.discarding = result.discarding;
      if (result.exhausted || result.bytesRead === 0) {
        exhausted = true;
        break;
      }
      if (used >= limits.bytes || batch.records.length - startRecords >= limits.records) break;
      if (limits.expired()) break;
    }
    if (exhausted && replayEnd !== null && live.readEnd < replayEnd) {
      // A gap in the retained bytes (pruned chunks): the rest cannot be replayed in order.
      live.readEnd = replayEnd;
      live.discarding = null;
    }
    let unsettled = false;
    if (exhausted) {
      sink.lineOffset = live.readEnd;
      sink.counting = true;
      // A clock set wrong can date a file in the future: past SETTLE_MS ahead it counts as settled.
      unsettled = present && Math.abs(limits.now - mtime) < SETTLE_MS;
      live.parser.drain(sink, !unsettled);
    }
    live.countedEnd = Math.max(live.countedEnd, live.readEnd);
    // Read up to where decoding failed: the rest waits until the file changes.
    if (bytes instanceof ZstdByteSource && bytes.failure !== null && exhausted)
      countUnreadable(t, batch, storedSize, mtime, "malformed");
    assignTimes(batch.rawChunks, rawStart, sink.times);
    this.doneBytes += used;

    // Checkpoint: held lines are re-read by a new process, so the offset stays before them.
    const held = live.parser.heldFrom();
    const offset = held !== null && held < live.readEnd ? held : live.readEnd;
    const complete = exhausted && bytes.size === live.readEnd && live.discarding === null;
    const plain = bytes instanceof FileByteSource;
    const { unsettled: _wasUnsettled, ...previous } = live.state;
    live.state = {
      ...previous,
      ...(unsettled ? { unsettled: true as const } : {}),
      tail: plain && used > 0 ? tailHash(bytes, live.readEnd) : live.state.tail,
      readEnd: live.readEnd,
      rawEnd: Math.max(live.state.rawEnd, live.readEnd),
      discarding: offset === live.readEnd ? live.discarding : null,
      complete,
      parser: live.parser.snapshot(),
      learned: live.parser.learned?.(),
    };
    batch.checkpoints.push({
      source: this.name,
      key: t.key,
      offset,
      size: storedSize,
      mtime,
      headHash: head,
      state: JSON.stringify(live.state),
    });
    live.committedOffset = offset;
    t.size = storedSize;
    t.mtime = mtime;
    t.ioFailures = 0;
    this.unreadableFiles.delete(t.key);
    // An unsettled file is looked at again once it settles, to release what its parser holds.
    t.retryAt = unsettled ? mtime + SETTLE_MS : 0;
    t.pending = bytes.size === null ? (exhausted ? 0 : 1) : Math.max(0, bytes.size - live.readEnd);
    if (live.state.gone && exhausted) {
      this.closeLive(t);
      this.setGone(t, true);
    } else if (exhausted && held === null) {
      // Read to its end with nothing held: the checkpoint has everything a later poll needs.
      this.closeLive(t);
    } else {
      if (!(bytes instanceof ZstdByteSource) || exhausted) {
        // Plain files are reopened on the next poll (they may have grown); a decoder is kept
        // while a compressed file is being read.
        live.bytes?.close();
        live.bytes = null;
      }
      this.keepLive(t);
    }
    return { bytes: used, more: !exhausted };
  }

  /** Builds the in-memory read state of a file from its checkpoint (or from nothing). */
  private start(
    t: Tracked,
    view: IndexView,
    batch: SourceBatch,
    cp: SourceCheckpoint | undefined,
    state: FileState | null,
    at: { path: string; rawFile: string; epoch: number; rawEnd: number; mtime: number; bytes?: ByteSource },
  ): Live {
    const context: ParserContext = { key: t.key, path: at.path, mtimeMs: at.mtime };
    if (at.bytes && this.spec.needsHead?.(at.path)) context.head = readHead(at.bytes, 64 * 1024);
    if (cp && state) {
      if (state.learned !== undefined) context.learned = state.learned;
      const parser = this.spec.createParser(
        context,
        cp.offset === state.readEnd || this.spec.snapshotSurvivesReread ? state.parser : null,
        cp.offset,
      );
      return {
        path: at.path,
        bytes: null,
        parser,
        readEnd: cp.offset,
        discarding: cp.offset === state.readEnd ? state.discarding : null,
        committedOffset: cp.offset,
        countedEnd: state.readEnd,
        storedSize: cp.size ?? 0,
        storedMtime: cp.mtime ?? 0,
        state: { ...state },
      };
    }
    // First sight (or after a rebuild reset the checkpoints): continue a retained epoch when
    // the file still holds the retained bytes, else open a new epoch (the old one's records
    // stay, as for a file replaced under a checkpoint).
    let epoch = at.epoch;
    let rawEnd = at.rawEnd;
    if (at.bytes) {
      const extent = view.retainedExtent(this.name, at.rawFile, HEAD_BYTES);
      if (extent) {
        const head = readHead(at.bytes, extent.head.length);
        const same =
          head.length >= extent.head.length &&
          head.equals(extent.head) &&
          (isCompressed(at.path) || this.holdsRetainedTail(view, at.rawFile, at.bytes, extent));
        epoch = same ? extent.epoch : extent.epoch + 1;
        rawEnd = same ? extent.end : 0;
        if (!same) countRewritten(batch);
      }
    }
    return readFromStart(at.path, null, this.spec.createParser(context, null, 0), {
      v: 1,
      rawFile: at.rawFile,
      epoch,
      rawEnd,
    });
  }

  /**
   * Whether a plain file still holds the last retained bytes of its epoch where they were read:
   * one truncated or rewritten past its head since (while no checkpoint watched it, as after a
   * rebuild's reset) is read as a new version. A compressed rollout is never
   * rewritten in place, and its bytes at an offset cost a decode from the start.
   */
  private holdsRetainedTail(
    view: IndexView,
    rawFile: string,
    bytes: ByteSource,
    extent: RetainedExtent,
  ): boolean {
    if (bytes.size !== null && bytes.size < extent.end) return false;
    const from = Math.max(extent.start, extent.end - HEAD_BYTES);
    const retained = view.readRetained(this.name, rawFile, extent.epoch, from, extent.end - from);
    // Pruned by retention: nothing left to compare with.
    if (retained.length < extent.end - from) return true;
    return readRange(bytes, from, extent.end).equals(retained);
  }

  /**
   * The file was truncated or replaced: it is read again from its start, as a new version (epoch).
   * What the earlier version produced stays: retained records, documents and raw chunks are
   * history, which only `recall forget` removes (a CLI that rewrites or empties a transcript
   * must not take it away). The new version's records are written beside them (SourceRecord.epoch).
   */
  private replace(
    t: Tracked,
    live: Live,
    batch: SourceBatch,
    file: string,
    bytes: ByteSource,
    mtime: number,
  ): Live {
    countRewritten(batch);
    const context: ParserContext = { key: t.key, path: file, mtimeMs: mtime };
    if (this.spec.needsHead?.(file)) context.head = readHead(bytes, 64 * 1024);
    return readFromStart(file, bytes, this.spec.createParser(context, null, 0), {
      ...live.state,
      epoch: live.state.epoch + 1,
      rawEnd: 0,
      tail: null,
    });
  }

  private retain(batch: SourceBatch, live: Live, offset: number, bytes: Buffer): void {
    const end = offset + bytes.length;
    if (end <= live.state.rawEnd) return;
    const from = Math.max(0, live.state.rawEnd - offset);
    const kept = from > 0 ? bytes.subarray(from) : bytes;
    const chunk: RawChunk = {
      source: this.name,
      file: live.state.rawFile,
      conversation: live.state.conversation,
      offset: offset + from,
      bytes: kept,
      epoch: live.state.epoch,
      firstAt: null,
      lastAt: null,
    };
    batch.rawChunks.push(chunk);
    live.state.rawEnd = end;
  }

  private sink(batch: SourceBatch, epoch: number): LineSink {
    const seen = new Set<ConversationRef>();
    const source = this.name;
    const sink: LineSink = {
      lineOffset: 0,
      counting: true,
      times: [],
      record(record) {
        batch.records.push(epoch > 0 ? { ...record, epoch } : record);
        const cursor = record.cursor !== null ? Number(record.cursor) : NaN;
        sink.times.push({ offset: Number.isFinite(cursor) ? cursor : sink.lineOffset, at: record.at });
      },
      conversation(ref) {
        if (seen.has(ref)) return;
        seen.add(ref);
        batch.conversations.push(ref);
      },
      alias(alias, session) {
        if (alias && session) batch.aliases.push({ alias, session, source });
      },
      titleClaim(claim) {
        (batch.titleClaims ??= []).push(claim);
      },
      skipped(count = 1) {
        if (sink.counting) batch.counters.skipped += count;
      },
      lineOf(offset, at) {
        sink.times.push({ offset, at });
      },
      malformed(count = 1) {
        if (sink.counting) batch.counters.malformed += count;
      },
    };
    return sink;
  }
}

/** A file opened for a poll: its bytes (from disk, or retained ones replayed) and where reading stands. */
interface Opened {
  live: Live;
  bytes: ByteSource;
  storedSize: number;
  mtime: number;
  head: string | null;
  /** A deleted file's retained end: a gap before it is skipped. */
  replayEnd: number | null;
}

interface LineSink extends JsonlSink {
  lineOffset: number;
  counting: boolean;
  times: { offset: number; at: number }[];
}
