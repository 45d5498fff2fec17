/**
 * The agent-bridge store (docs/bridge-store.md), indexed read-only: bridge.db (live messages,
 * the derived insert queue, questions and answers, decisions, session bindings), archive.db
 * (cold messages) and the run logs of runs/ and runs/archive/ with their JSON metadata.
 *
 * Per tick at most MAX_ROWS (100) rows from each of: live messages, the insert queue,
 * decision revisions and cold archive rows (and questions, answers, bindings). Cursors are
 * checkpoints committed with the documents they produced. A message is keyed by its id
 * whichever table it is read from, so the live row, its insert-queue capture and its cold
 * copy are one document; the insert queue's seq is never reused, so a live rowid SQLite
 * reuses, or a row archived or deleted before the tick, loses or doubles nothing.
 *
 * Runs: discovery streams at most `budget.maxEntries` directory entries per tick and repeats
 * every DISCOVERY_INTERVAL_MS; `budget.maxFiles` known runs are polled per tick in turn. A log
 * is read from its byte cursor in 64 KiB reads; its metadata is re-read when its stat changes
 * and re-indexed when its content hash differs from the checkpoint's. Malformed metadata is
 * skipped and counted once per content, never renamed or repaired.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  opendirSync,
  readSync,
  statSync,
  type Dir,
  type Stats,
} from "node:fs";
import path from "node:path";
import {
  answeredAfter,
  bindingsAfter,
  capturedMessagesAfter,
  coldMessagesAfter,
  decisionsAfter,
  hasTables,
  liveMessagesAfter,
  questionsAfter,
} from "../../bridge/read.js";
import { RunMetadata } from "../../bridge/records.js";
import { metadataName, parseRunName, type RunName } from "../../bridge/runs.js";
import { bridgePaths, type BridgePaths } from "../../bridge/schema.js";
import { parseJson } from "../shared/json.js";
import { firstTimestamp } from "../shared/time.js";
import { openSourceDatabase, type Db } from "../../store/open.js";
import { pluckedStatement } from "../../store/statements.js";
import { FileByteSource } from "../files/byte-source.js";
import { headHash, readHead, sameHead } from "../files/head.js";
import type { Budget, IndexView, Source, SourceBatch, SourceCheckpoint, SourceRecord } from "../types.js";
import { emptyBatch } from "../types.js";
import {
  BRIDGE_AGENT,
  BRIDGE_SOURCE,
  decisionRecord,
  messageRecord,
  questionRecord,
  runChunkRecord,
  runInfo,
  runMetadataRecord,
  type RunInfo,
} from "./records.js";
import { readRunLog, RUN_DOC_BYTES } from "./run-log.js";

/** Rows per table per tick (the spec's 100 primary, 100 live-queue, 100 decision, 100 cold rows). */
export const MAX_ROWS = 100;
export const DISCOVERY_INTERVAL_MS = 30_000;
/** Metadata files larger than this are malformed (a metadata file is a small JSON object). */
export const MAX_METADATA_BYTES = 256 * 1024;
/** A log whose final line has not ended is flushed once it has not changed for this long. */
export const RUN_QUIET_MS = 60_000;
const REOPEN_INTERVAL_MS = 30_000;

/** Row cursors, one checkpoint each. */
type Cursor = "live" | "inserts" | "questions" | "answers" | "decisions" | "bindings" | "cold";

interface RunState {
  v: 1;
  /** Run time (jobStartedAt, else the name's UTC start, else birth time). */
  at: number;
  /** sha256 of the metadata indexed last, or of the malformed content counted last. */
  meta: string | null;
  bad: string | null;
  /** Metadata stat when last hashed: unchanged stat, no re-read. */
  metaStat: string | null;
  info: RunInfo | null;
  finished: boolean;
}

function parseState(cp: SourceCheckpoint | undefined): RunState | null {
  if (!cp?.state) return null;
  const parsed = parseJson(cp.state);
  const state = parsed.ok ? (parsed.value as RunState) : null;
  return state?.v === 1 ? state : null;
}

export interface BridgeSourceOptions {
  root: string;
  name?: string;
  /** The agent filter's own agents (registry.ts): a run's metadata naming one keeps it. */
  agents: readonly string[];
}

export class BridgeSource implements Source {
  readonly name: string;
  readonly agent = BRIDGE_AGENT;
  private readonly paths: BridgePaths;
  private db: Db | null = null;
  private archive: Db | null = null;
  /** Known runs: log basename → folder. */
  private readonly runs = new Map<string, string>();
  private pollOrder: string[] = [];
  private pollPos = 0;
  private dir: Dir | null = null;
  private dirQueue: string[] = [];
  private sweepSeen = new Set<string>();
  private sweepStartedAt = -Infinity;
  private sweeps = 0;
  private cleanSweeps = 0;
  private roundChanged = false;
  private readonly backlog = new Map<string, number>();
  private doneBytes = 0;
  private readonly agents: ReadonlySet<string>;

  constructor(options: BridgeSourceOptions) {
    this.name = options.name ?? BRIDGE_SOURCE;
    this.agents = new Set(options.agents);
    this.paths = bridgePaths(options.root);
  }

  close(): void {
    this.db?.close();
    this.archive?.close();
    this.db = this.archive = null;
    try {
      this.dir?.closeSync();
    } catch {
      // already closed
    }
    this.dir = null;
  }

  /** After a database failed under a query, it is looked for again from this time. */
  private retryAt = -Infinity;
  /**
   * Each database's PRAGMA data_version when a scan of it last found nothing. recall never
   * writes these databases, so while the version holds nothing new is there: a backfill's
   * back-to-back ticks skip seven queries each.
   */
  private readonly quietAt = new WeakMap<Db, number>();
  /** A run whose log was read to its end: its log and metadata stats, unchanged since. */
  private readonly settled = new Map<string, string>();

  /** Runs `scans` unless the database is known to hold nothing new; remembers when they find nothing. */
  private scanUnlessQuiet(db: Db, scans: () => number): void {
    const version = pluckedStatement(db, "PRAGMA data_version").get() as number;
    if (this.quietAt.get(db) === version) return;
    if (scans() === 0) this.quietAt.set(db, version);
    else this.quietAt.delete(db);
  }

  /** The file each open database was opened from, as storeIdentity saw it then. */
  private readonly opened = new WeakMap<Db, string>();

  private openDb(file: string, tables: string[], now: number): Db | null {
    if (now < this.retryAt || !existsSync(file)) return null;
    try {
      const identity = storeIdentity(file);
      const db = openSourceDatabase(file);
      if (hasTables(db, tables) && identity) {
        this.opened.set(db, identity);
        return db;
      }
      db.close();
    } catch {
      // unreadable now: looked for again next tick
    }
    return null;
  }

  /** An open database whose path now names another file (the store was recreated) is closed. */
  private stillThere(db: Db | null, file: string): Db | null {
    if (!db || storeIdentity(file) === this.opened.get(db)) return db;
    db.close();
    return null;
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const batch = emptyBatch();
    let busy = false;
    let found = 0;
    this.db = this.stillThere(this.db, this.paths.db);
    this.archive = this.stillThere(this.archive, this.paths.archive);
    this.db ??= this.openDb(
      this.paths.db,
      ["messages", "message_inserts", "questions", "answers", "decisions", "bindings"],
      budget.now,
    );
    this.archive ??= this.openDb(this.paths.archive, ["messages"], budget.now);
    // A cursor counts rows of the store it was saved for; a recreated store starts from its first
    // row (a cursor saved before stores were told apart is taken as this store's).
    const identity = (key: Cursor) => this.opened.get((key === "cold" ? this.archive : this.db)!) ?? null;
    const cursor = (key: Cursor) => {
      const cp = view.checkpoint(this.name, key);
      return cp && (cp.headHash === null || cp.headHash === identity(key)) ? cp.offset : 0;
    };
    const scan = <R extends { pos: number }>(
      key: Cursor,
      rows: () => R[],
      emit: (row: R) => void,
    ): number => {
      const list = rows();
      for (const row of list) emit(row);
      if (list.length > 0) {
        found += list.length;
        batch.checkpoints.push(this.cursorCheckpoint(key, list.at(-1)!.pos, identity(key)));
      }
      if (list.length >= MAX_ROWS) busy = true;
      return list.length;
    };
    const seen = new Set<string>();
    const push = (record: SourceRecord) => {
      // The same message read from two tables in one tick is written once.
      if (seen.has(record.sourceKey)) return;
      seen.add(record.sourceKey);
      batch.records.push(record);
    };
    try {
      const db = this.db;
      if (db) {
        this.scanUnlessQuiet(
          db,
          () =>
            scan(
              "live",
              () => liveMessagesAfter(db, cursor("live"), MAX_ROWS),
              (r) => push(messageRecord(r)),
            ) +
            scan(
              "inserts",
              () => capturedMessagesAfter(db, cursor("inserts"), MAX_ROWS),
              (r) => push(messageRecord(r)),
            ) +
            scan(
              "questions",
              () => questionsAfter(db, cursor("questions"), MAX_ROWS),
              (r) => push(questionRecord(r)),
            ) +
            scan(
              "answers",
              () => answeredAfter(db, cursor("answers"), MAX_ROWS),
              (r) => {
                seen.delete(`q:${r.id}`); // the answered version replaces an unanswered one read this tick
                push(questionRecord(r));
              },
            ) +
            scan(
              "decisions",
              () => decisionsAfter(db, cursor("decisions"), MAX_ROWS),
              (r) => push(decisionRecord(r)),
            ) +
            scan(
              "bindings",
              () => bindingsAfter(db, cursor("bindings"), MAX_ROWS),
              (r) => batch.aliases.push({ alias: r.peer, session: r.session, source: this.name }),
            ),
        );
      }
      const archive = this.archive;
      if (archive) {
        this.scanUnlessQuiet(archive, () =>
          scan(
            "cold",
            () => coldMessagesAfter(archive, cursor("cold"), MAX_ROWS),
            (r) => push(messageRecord(r)),
          ),
        );
      }
    } catch {
      // A database replaced, locked or of another shape: nothing of this batch is committed,
      // and it is opened again after a pause (an idle source, not a backfill that never ends).
      this.close();
      this.retryAt = budget.now + REOPEN_INTERVAL_MS;
      return this.finish(emptyBatch(), false);
    }
    if (found > 0) this.roundChanged = true;
    const runsBusy = this.syncRuns(view, budget, batch);
    return this.finish(batch, busy || runsBusy);
  }

  private finish(batch: SourceBatch, busy: boolean): SourceBatch {
    batch.idle = !busy;
    let backlogBytes = 0;
    for (const n of this.backlog.values()) backlogBytes += n;
    batch.progress = {
      filesKnown: this.runs.size + (this.db ? 1 : 0) + (this.archive ? 1 : 0),
      backlogFiles: this.backlog.size,
      backlogBytes,
      doneBytes: this.doneBytes,
      discovered: this.sweeps > 0,
      cleanSweeps: this.cleanSweeps,
    };
    return batch;
  }

  private cursorCheckpoint(key: string, offset: number, store: string | null): SourceCheckpoint {
    return { source: this.name, key, offset, size: null, mtime: null, headHash: store, state: null };
  }

  /** Discovery step, then `maxFiles` runs polled in turn; true while work is waiting. */
  private syncRuns(view: IndexView, budget: Budget, batch: SourceBatch): boolean {
    const discovering = this.discover(budget);
    let bytes = 0;
    const polls = Math.min(budget.maxFiles, this.pollOrder.length);
    let roundDone = this.pollOrder.length === 0;
    // Log bytes this tick may still read: the byte budget, and the record budget in chunks.
    const room = () =>
      Math.min(budget.maxBytes - bytes, (budget.maxRecords - batch.records.length) * RUN_DOC_BYTES);
    for (let i = 0; i < polls && !budget.expired() && room() > 0; i++) {
      if (this.pollPos >= this.pollOrder.length) this.pollPos = 0;
      const log = this.pollOrder[this.pollPos++]!;
      bytes += this.pollRun(log, view, budget, batch, room());
      if (this.pollPos >= this.pollOrder.length) roundDone = true;
    }
    if (roundDone && !discovering) {
      if (!this.roundChanged && this.sweeps > 0) this.cleanSweeps += 1;
      this.roundChanged = false;
    }
    return discovering || this.backlog.size > 0;
  }

  /** Streams runs/ then runs/archive/, at most maxEntries per tick; true while a sweep runs. */
  private discover(budget: Budget): boolean {
    if (!this.dir && this.dirQueue.length === 0) {
      if (this.sweeps > 0 && budget.now - this.sweepStartedAt < DISCOVERY_INTERVAL_MS) return false;
      this.sweepStartedAt = budget.now;
      this.dirQueue = [this.paths.runs, this.paths.runsArchive];
      this.sweepSeen = new Set();
    }
    let entries = 0;
    while (entries < budget.maxEntries) {
      if (!this.dir) {
        const next = this.dirQueue.shift();
        if (next === undefined) break;
        try {
          this.dir = opendirSync(next);
        } catch {
          continue; // a missing folder holds no runs
        }
      }
      const entry = this.dir.readSync();
      if (!entry) {
        this.dir.closeSync();
        this.dir = null;
        continue;
      }
      entries += 1;
      if (!entry.isFile() || !entry.name.endsWith(".log") || !parseRunName(entry.name)) continue;
      this.sweepSeen.add(entry.name);
      const folder = path.basename(this.dir.path) === "archive" ? this.paths.runsArchive : this.paths.runs;
      if (!this.runs.has(entry.name)) {
        this.pollOrder.push(entry.name);
        this.roundChanged = true;
      }
      this.runs.set(entry.name, folder);
    }
    if (this.dir || this.dirQueue.length > 0) return true;
    // Sweep complete: runs no folder holds any more are no longer polled (their documents stay).
    for (const log of [...this.runs.keys()]) {
      if (!this.sweepSeen.has(log)) {
        this.runs.delete(log);
        this.backlog.delete(log);
      }
    }
    this.pollOrder = this.pollOrder.filter((log) => this.runs.has(log));
    this.sweeps += 1;
    return false;
  }

  /** Reads a run's new log bytes and, when its content changed, its metadata. Returns bytes read. */
  private pollRun(
    log: string,
    view: IndexView,
    budget: Budget,
    batch: SourceBatch,
    maxBytes: number,
  ): number {
    const name = parseRunName(log)!;
    const key = `run:${log}`;
    const file = this.locate(log);
    let source: FileByteSource | null = null;
    try {
      if (!file) throw new Error("gone");
      const stat = statSync(file.log);
      const stats = `${statKey(stat)}|${statKeyOf(file.metadata)}`;
      if (this.settled.get(log) === stats) return 0;
      this.settled.delete(log);
      const born = name.startedAt ?? Math.floor(stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs);
      const cp = view.checkpoint(this.name, key);
      let state: RunState = parseState(cp) ?? {
        v: 1,
        at: born,
        meta: null,
        bad: null,
        metaStat: null,
        info: null,
        finished: false,
      };
      let offset = cp?.offset ?? 0;
      source = new FileByteSource(file.log);
      let changed = !cp;
      // A replaced log (shorter, or different first bytes) starts over, metadata included.
      if (cp && (source.size < offset || !sameHead(source, cp.headHash))) {
        batch.resets.push(`run:${log}`);
        offset = 0;
        state = { v: 1, at: born, meta: null, bad: null, metaStat: null, info: null, finished: false };
        changed = true;
      }
      const before = state.info ?? runInfo(log, name.job, state.at, null, this.agents);
      const meta = this.readMetadata(file.metadata, state, name, born, batch);
      if (meta.state !== state) {
        state = meta.state;
        changed = true;
      }
      const info = state.info ?? runInfo(log, name.job, state.at, null, this.agents);
      // Chunks carry the run's time, job, session, agent and project: when new metadata changes
      // them, the chunks already indexed are read again (rare: a run's start and its end).
      if (offset > 0 && JSON.stringify(info) !== JSON.stringify(before)) {
        batch.resets.push(`run:${log}`);
        offset = 0;
      }
      if (meta.record) batch.records.push(meta.record);
      let bytesRead = 0;
      if (source.size > offset) {
        const quiet = budget.now - Math.floor(stat.mtimeMs) >= RUN_QUIET_MS;
        const read = readRunLog(source, offset, maxBytes, state.finished || quiet);
        for (const piece of read.pieces) batch.records.push(runChunkRecord(info, piece.offset, piece.text));
        bytesRead = read.bytesRead;
        if (read.next !== offset) changed = true;
        this.doneBytes += read.next - offset;
        offset = read.next;
        // A held-back final line of a live log is no backlog: it waits for its newline.
        if (!read.exhausted) this.backlog.set(log, source.size - offset);
        else this.backlog.delete(log);
      } else {
        this.backlog.delete(log);
        if (!changed) this.settled.set(log, stats);
      }
      if (changed) {
        this.roundChanged = true;
        batch.checkpoints.push({
          source: this.name,
          key,
          offset,
          size: source.size,
          mtime: Math.floor(stat.mtimeMs),
          headHash: headHash(readHead(source)),
          state: JSON.stringify(state),
        });
      }
      return bytesRead;
    } catch {
      // Moved or deleted between discovery and this poll: found again by the next sweep.
      this.backlog.delete(log);
      return 0;
    } finally {
      source?.close();
    }
  }

  /** The run's files, in the folder it was last seen in, else in the other one (it moved). */
  private locate(log: string): { log: string; metadata: string } | null {
    const name = parseRunName(log)!;
    const known = this.runs.get(log) ?? this.paths.runs;
    for (const dir of [known, known === this.paths.runs ? this.paths.runsArchive : this.paths.runs]) {
      const file = path.join(dir, log);
      if (existsSync(file)) {
        this.runs.set(log, dir);
        return { log: file, metadata: path.join(dir, metadataName(name)) };
      }
    }
    return null;
  }

  /**
   * Re-reads metadata whose stat changed; indexes it when its content hash differs from the
   * one indexed last. Malformed content is counted once per content and left as it is.
   */
  private readMetadata(
    file: string,
    state: RunState,
    name: RunName,
    born: number,
    batch: SourceBatch,
  ): { state: RunState; record: SourceRecord | null } {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return { state, record: null }; // no metadata (yet): the run keeps its name's time
    }
    const key = statKey(stat);
    if (key === state.metaStat) return { state, record: null };
    let bytes: Buffer | null = null;
    if (stat.size <= MAX_METADATA_BYTES) {
      bytes = Buffer.alloc(stat.size);
      const fd = openSync(file, "r");
      try {
        readSync(fd, bytes, 0, stat.size, 0);
      } finally {
        closeSync(fd);
      }
    }
    const hash = bytes ? createHash("sha256").update(bytes).digest("hex") : `oversized:${key}`;
    const next = { ...state, metaStat: key };
    if (hash === state.meta || hash === state.bad) return { state: next, record: null };
    const parsed = bytes ? parseJson(bytes.toString("utf8")) : ({ ok: false } as const);
    const meta = parsed.ok ? RunMetadata.safeParse(parsed.value) : null;
    if (!meta?.success) {
      batch.counters.malformed += 1;
      return { state: { ...next, bad: hash }, record: null };
    }
    const at = firstTimestamp([meta.data.jobStartedAt]) ?? born;
    const info = runInfo(name.log, name.job, at, meta.data, this.agents);
    const finished =
      (meta.data.jobFinishedAt !== undefined && meta.data.jobFinishedAt !== null) ||
      (meta.data.exitCode !== undefined && meta.data.exitCode !== null);
    return {
      state: { ...next, meta: hash, bad: null, at, info, finished },
      record: runMetadataRecord(info, meta.data),
    };
  }
}

/** What tells a file's change without reading it: size, modification time, inode. */
function statKey(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

function statKeyOf(file: string): string {
  try {
    return statKey(statSync(file));
  } catch {
    return "none";
  }
}

/**
 * Which file a store's path names now: its inode and birth time (a store removed and created
 * again gets a new birth time even where the inode number is reused); null when it is gone.
 */
function storeIdentity(file: string): string | null {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.ino}:${stat.birthtimeNs}`;
  } catch {
    return null;
  }
}
