/**
 * A bounded, read-only reader of a CLI's SQLite session database (a sessions table and a
 * messages table). Opened read-only: a live WAL is read, never checkpointed; nothing is written.
 *
 * Per tick: sessions changed since the database's cursor are queued (at most `maxSessionRows`),
 * then queued sessions' messages changed since each session's cursor are read in pages, each
 * row retained as one JSON line. The connection's data version skips the scan while nothing was
 * committed. A database that is gone keeps its records; one that will not open is counted
 * malformed once and tried again.
 *
 * The format says what changed through `changedSessions`: a session whose messages changed must
 * come back there (order by the newest of its own and its messages' update times), as this base
 * reads messages only of sessions it is given.
 */
import { statSync } from "node:fs";
import type { Db } from "../../store/open.js";
import { openSourceDatabase } from "../../store/open.js";
import type {
  Budget,
  ConversationRef,
  IndexView,
  Source,
  SourceBatch,
  SourceCheckpoint,
  SourceRecord,
} from "../types.js";
import { emptyBatch } from "../types.js";
import { DEFAULT_MAX_LINE_BYTES } from "../files/jsonl-reader.js";
import { DISCOVERY_INTERVAL_MS } from "../files/jsonl-source.js";
import { parseJson } from "../shared/json.js";

/** A position in a table read by change time: rows after (t, id). */
export interface RowCursor {
  t: number;
  id: string;
}

export const START: RowCursor = { t: -Infinity, id: "" };

/** A row the base pages by: its id and change time. */
export interface ChangedRow {
  id: string;
  updatedAt: number;
}

export interface SessionDatabaseSpec<S extends ChangedRow, M extends ChangedRow> {
  name: string;
  agent: string;
  /** The database files to read; looked for again every discovery interval. */
  files(): string[];
  /** Whether an open database has this format's tables. */
  recognise(db: Db): boolean;
  /** Sessions changed after `after`, oldest change first, at most `limit`. */
  changedSessions(db: Db, after: RowCursor, limit: number): S[];
  /** One session's messages changed after `after`, oldest change first, at most `limit`. */
  changedMessages(db: Db, session: string, after: RowCursor, limit: number): M[];
  conversation(session: S): ConversationRef;
  /** The records of one message row (none for rows not indexed: counted skipped). */
  records(message: M, conversation: ConversationRef): SourceRecord[];
  /** Rows whose JSON is larger are not mapped (counted oversized; retained). */
  maxRowBytes?: number;
}

/** Message rows read per session per step. */
export const MESSAGE_PAGE = 200;

interface Open {
  file: string;
  db: Db | null;
  failed: boolean;
  /** Sessions to read messages of, with their row. */
  queue: Map<string, ChangedRow>;
  /** The data version at which a scan last found nothing new. */
  cleanAt: number | null;
  conversations: Map<string, ConversationRef>;
}

interface DatabaseState {
  v: 1;
  sessions: RowCursor | null;
}

interface SessionState {
  v: 1;
  messages: RowCursor | null;
}

function parseState<T extends { v: 1 }>(cp: SourceCheckpoint | undefined): T | null {
  const parsed = cp?.state ? parseJson(cp.state) : null;
  const state = parsed?.ok ? (parsed.value as T) : null;
  return state?.v === 1 ? state : null;
}

// JSON has no -Infinity: a cursor at the start is stored as null.
const storeCursor = (c: RowCursor) => (c.t === -Infinity ? null : c);
const loadCursor = (c: RowCursor | null | undefined): RowCursor => c ?? START;

export class SessionDatabaseSource<S extends ChangedRow, M extends ChangedRow> implements Source {
  readonly name: string;
  readonly agent: string;
  readonly retainsHistory = true;
  private readonly open = new Map<string, Open>();
  private lastScan = -Infinity;
  private cleanSweeps = 0;
  private doneRows = 0;

  constructor(private readonly spec: SessionDatabaseSpec<S, M>) {
    this.name = spec.name;
    this.agent = spec.agent;
  }

  close(): void {
    for (const entry of this.open.values()) entry.db?.close();
    this.open.clear();
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const batch = emptyBatch();
    if (budget.now - this.lastScan >= DISCOVERY_INTERVAL_MS) {
      this.lastScan = budget.now;
      for (const file of this.spec.files()) {
        if (!this.open.has(file))
          this.open.set(file, {
            file,
            db: null,
            failed: false,
            queue: new Map(),
            cleanAt: null,
            conversations: new Map(),
          });
      }
    }
    let idle = true;
    let clean = true;
    let sessionRows = budget.maxSessionRows;
    for (const entry of this.open.values()) {
      const db = this.connect(entry, batch);
      if (!db) continue;
      try {
        const scanned = this.scan(entry, db, view, batch, sessionRows);
        sessionRows -= scanned;
        if (scanned > 0) clean = false;
        if (!this.readQueued(entry, db, view, batch, budget)) idle = false;
      } catch {
        // Locked or being rewritten: a fresh connection next tick.
        entry.db?.close();
        entry.db = null;
        idle = false;
      }
      if (entry.queue.size > 0) idle = clean = false;
      if (batch.records.length >= budget.maxRecords || budget.expired()) {
        idle = false;
        break;
      }
    }
    if (idle && clean) this.cleanSweeps += 1;
    batch.progress = {
      filesKnown: [...this.open.values()].filter((e) => e.db !== null).length,
      backlogFiles: [...this.open.values()].reduce((n, e) => n + e.queue.size, 0),
      backlogBytes: 0,
      doneBytes: this.doneRows,
      discovered: this.lastScan > -Infinity,
      cleanSweeps: this.cleanSweeps,
    };
    batch.idle = idle;
    return batch;
  }

  private connect(entry: Open, batch: SourceBatch): Db | null {
    if (entry.db) return entry.db;
    try {
      statSync(entry.file);
    } catch {
      return null; // gone: its records stay
    }
    try {
      const db = openSourceDatabase(entry.file);
      if (!this.spec.recognise(db)) {
        db.close();
        throw new Error("not this format");
      }
      entry.db = db;
      entry.failed = false;
      entry.cleanAt = null;
      return db;
    } catch {
      if (!entry.failed) batch.counters.malformed += 1;
      entry.failed = true;
      return null;
    }
  }

  /** Queues the sessions changed since the cursor; returns the session rows read. */
  private scan(entry: Open, db: Db, view: IndexView, batch: SourceBatch, limit: number): number {
    const version = db.pragma("data_version", { simple: true }) as number;
    if (entry.cleanAt === version || limit <= 0) return 0;
    const key = `db:${entry.file}`;
    const cp = view.checkpoint(this.name, key);
    const state = parseState<DatabaseState>(cp) ?? { v: 1, sessions: START };
    let cursor = loadCursor(state.sessions);
    const rows = this.spec.changedSessions(db, cursor, limit);
    for (const row of rows) {
      const ref = this.spec.conversation(row);
      entry.conversations.set(row.id, ref);
      batch.conversations.push(ref);
      entry.queue.set(row.id, row);
      cursor = { t: row.updatedAt, id: row.id };
    }
    if (rows.length > 0)
      batch.checkpoints.push(this.checkpoint(key, { v: 1, sessions: storeCursor(cursor) }));
    if (rows.length < limit && entry.queue.size === 0) entry.cleanAt = version;
    return rows.length;
  }

  /** Reads queued sessions' changed messages, page by page; true when the queue is empty. */
  private readQueued(entry: Open, db: Db, view: IndexView, batch: SourceBatch, budget: Budget): boolean {
    for (const [session, row] of entry.queue) {
      if (batch.records.length >= budget.maxRecords || budget.expired()) return false;
      const key = `db:${entry.file}#${session}`;
      const state = parseState<SessionState>(view.checkpoint(this.name, key)) ?? { v: 1, messages: START };
      let cursor = loadCursor(state.messages);
      const conversation = entry.conversations.get(session) ?? this.spec.conversation(row as S);
      const messages = this.spec.changedMessages(db, session, cursor, MESSAGE_PAGE);
      for (const message of messages) {
        this.emit(entry, message, conversation, batch);
        cursor = { t: message.updatedAt, id: message.id };
        this.doneRows += 1;
      }
      if (messages.length > 0)
        batch.checkpoints.push(this.checkpoint(key, { v: 1, messages: storeCursor(cursor) }));
      if (messages.length >= MESSAGE_PAGE) return false;
      entry.queue.delete(session);
      entry.cleanAt = null;
    }
    return true;
  }

  private emit(entry: Open, message: M, conversation: ConversationRef, batch: SourceBatch): void {
    const line = JSON.stringify(message);
    const oversized = Buffer.byteLength(line) > (this.spec.maxRowBytes ?? DEFAULT_MAX_LINE_BYTES);
    const records = oversized ? [] : this.spec.records(message, conversation);
    if (oversized) batch.counters.oversized += 1;
    else if (records.length === 0) batch.counters.skipped += 1;
    batch.records.push(...records);
    const times = records.map((r) => r.at);
    batch.rawChunks.push({
      source: this.name,
      file: entry.file,
      conversation: conversation.id,
      offset: message.updatedAt,
      unit: "row",
      bytes: Buffer.from(`${line}\n`, "utf8"),
      epoch: 0,
      firstAt: times.length > 0 ? Math.min(...times) : null,
      lastAt: times.length > 0 ? Math.max(...times) : null,
      dedupe: true,
    });
  }

  private checkpoint(key: string, state: unknown): SourceCheckpoint {
    return {
      source: this.name,
      key,
      offset: 0,
      size: null,
      mtime: null,
      headHash: null,
      state: JSON.stringify(state),
    };
  }
}
