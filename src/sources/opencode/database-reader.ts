/**
 * opencode's databases: every `opencode*.db` in its data folder, and OPENCODE_DB. 1.x holds
 * `session`/`message`/`part`, 2.x `session_v2`/`session_message`. Per tick: sessions changed since
 * the cursors are queued (at most `maxSessionRows` rows), a slow re-check sweep catches messages
 * updated after their session row, and queued sessions' messages are read page by page. Opened
 * read-only: a live `-wal` is read, never checkpointed.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Budget, IndexView, SourceBatch } from "../types.js";
import { DISCOVERY_INTERVAL_MS } from "../files/jsonl-source.js";
import { mapOpencodeV1Message, mapOpencodeV2Message } from "./record.js";
import {
  OpencodeDb,
  PAGE_MAX_BYTES,
  PAGE_MAX_ROWS,
  rowBytes,
  START,
  type Cursor,
  type SessionRow,
} from "./db.js";
import { ScanCadence } from "./cadence.js";
import { parseState, type OpencodeSessions } from "./sessions.js";

interface DbState {
  v: 1;
  /** Change cursor per session table. */
  cursors: Record<string, Cursor>;
  /** Re-check sweep position per session table (rowid). */
  sweep: Record<string, number>;
  /**
   * A table's first listing, by rowid (indexed) rather than by change time (a full scan and
   * sort per page: quadratic in sessions): the rowid reached, and the change cursor to take up
   * once it ends: the newest change when it began.
   */
  listing?: Record<string, { rowid: number; until: Cursor }>;
}

interface SessionState {
  v: 1;
  schema: "v1" | "v2";
  messages: Cursor;
  parts: Cursor;
}

interface OpenDb {
  file: string;
  db: OpencodeDb | null;
  /** The file is there but would not open as an opencode database (counted malformed once). */
  failed: boolean;
  /** Sessions whose messages need a look, in the order they were queued. */
  queue: Map<string, SessionRow | null>;
  sweepDone: boolean;
  /** A re-check sweep is under way. */
  sweeping: boolean;
  /** When the last re-check sweep started. */
  sweepStartedAt: number;
  scanCadence: ScanCadence;
  /** The last scan of its session rows found nothing new (reset when a clean sweep is counted). */
  scannedClean: boolean;
  caughtUp: boolean;
  /**
   * The connection's data version (`OpencodeDb.dataVersion`) when a scan of every session
   * table last found nothing, and when each session's messages were last read to the end: while
   * the version holds, nothing was committed since, so the scan or re-check would find nothing.
   * Like the queue, this assumes the cursors it read stay (a reset of them rebuilds the sources).
   */
  cleanAt: number | null;
  readAt: Map<string, number>;
}

/** A re-check sweep of every session starts at most this often. */
export const SWEEP_INTERVAL_MS = 30_000;

/** Caught up, nothing queued, and the last re-check sweep finished with nothing read since. */
const databaseIdle = (entry: OpenDb): boolean =>
  entry.caughtUp && !entry.sweeping && entry.queue.size === 0 && entry.sweepDone;

const dbKey = (file: string) => `db:${file}`;
const sessionKey = (file: string, id: string) => `db:${file}#${id}`;

export class OpencodeDatabases {
  private readonly dbs = new Map<string, OpenDb>();
  private lastDbScan = -Infinity;

  constructor(
    private readonly dataDir: string,
    private readonly explicitDb: string | null,
    private readonly shared: OpencodeSessions,
  ) {}

  close(): void {
    for (const entry of this.dbs.values()) entry.db?.close();
    this.dbs.clear();
  }

  /** Databases found. */
  get size(): number {
    return this.dbs.size;
  }

  /** Sessions queued for a read of their messages. */
  get queued(): number {
    return [...this.dbs.values()].reduce((n, e) => n + e.queue.size, 0);
  }

  /** One tick's share of every database, within the session-row budget; true when all are idle. */
  sync(view: IndexView, batch: SourceBatch, budget: Budget): boolean {
    this.scanDatabases(budget.now);
    let sessionRows = budget.maxSessionRows;
    let idle = true;
    for (const entry of this.dbs.values()) {
      const db = this.openDb(entry, batch);
      if (!db) continue;
      const used = this.syncDatabase(entry, db, view, batch, budget, sessionRows);
      sessionRows -= used.sessionRows;
      if (!used.idle) idle = false;
      if (batch.records.length >= budget.maxRecords || budget.expired()) {
        idle = false;
        break;
      }
    }
    return idle;
  }

  /** Every open database's last scan found nothing new since the last clean sweep was counted. */
  scannedClean(): boolean {
    return [...this.dbs.values()].filter((e) => e.db !== null).every((e) => e.scannedClean);
  }

  /** A clean sweep was counted: the next needs another clean scan of each. */
  cleanCounted(): void {
    for (const e of this.dbs.values()) if (e.db !== null) e.scannedClean = false;
  }

  /** Every database still on disk is open: a locked one would make its sessions look gone. */
  readable(): boolean {
    for (const entry of this.dbs.values()) if (!entry.db && existsSync(entry.file)) return false;
    return true;
  }

  /** A session some open database holds. */
  holds(sessionId: string): boolean {
    for (const entry of this.dbs.values()) {
      if (entry.db?.sessionById(sessionId)) return true;
    }
    return false;
  }

  private scanDatabases(now: number): void {
    if (now - this.lastDbScan < DISCOVERY_INTERVAL_MS) return;
    this.lastDbScan = now;
    const found: string[] = [];
    if (this.explicitDb) found.push(this.explicitDb);
    try {
      for (const name of readdirSync(this.dataDir)) {
        if (/^opencode.*\.db$/.test(name)) found.push(path.join(this.dataDir, name));
      }
    } catch {
      // no data directory
    }
    for (const file of found) {
      if (this.dbs.has(file)) continue;
      this.dbs.set(file, {
        file,
        db: null,
        failed: false,
        queue: new Map(),
        sweepDone: false,
        sweeping: false,
        sweepStartedAt: -Infinity,
        scanCadence: new ScanCadence(),
        scannedClean: false,
        caughtUp: false,
        cleanAt: null,
        readAt: new Map(),
      });
    }
  }

  private openDb(entry: OpenDb, batch: SourceBatch): OpencodeDb | null {
    if (entry.db) return entry.db;
    try {
      statSync(entry.file);
    } catch {
      return null; // gone: its retained history stays
    }
    try {
      entry.db = new OpencodeDb(entry.file);
      entry.failed = false;
      // Data versions are the connection's own: a new one compares with nothing seen before.
      entry.cleanAt = null;
      entry.readAt.clear();
      return entry.db;
    } catch {
      // There but unreadable (not SQLite, corrupt): counted once, retried every tick.
      if (!entry.failed) batch.counters.malformed += 1;
      entry.failed = true;
      return null;
    }
  }

  /** One database's share of a tick. */
  private syncDatabase(
    entry: OpenDb,
    db: OpencodeDb,
    view: IndexView,
    batch: SourceBatch,
    budget: Budget,
    sessionRows: number,
  ): { sessionRows: number; idle: boolean } {
    const due = entry.scanCadence.due(budget);
    const scan = !entry.caughtUp || due;
    const sweepDue = budget.now - entry.sweepStartedAt >= SWEEP_INTERVAL_MS;
    // Caught up, with no scan or sweep due and nothing queued (most ticks): no work, no cursor.
    if (!scan && !entry.sweeping && !sweepDue && entry.queue.size === 0) {
      return { sessionRows: 0, idle: databaseIdle(entry) };
    }
    const key = dbKey(entry.file);
    const cp = view.checkpoint(this.shared.name, key);
    const state: DbState = parseState<DbState>(cp) ?? { v: 1, cursors: {}, sweep: {} };
    let rows = 0;
    try {
      db.refresh();
      const version = db.dataVersion();
      // 1. Sessions changed since the cursors: new sessions, titles, activity. Once caught up,
      //    looked for at most every SCAN_INTERVAL_MS (the tables have no time index).
      if (scan) {
        const started = performance.now();
        rows += this.scanSessions(entry, db, version, state, batch, sessionRows);
        entry.scanCadence.spent(performance.now() - started);
        entry.scanCadence.looked(budget.now);
      }
      // 2. When caught up, a slow sweep re-checks every session (messages updated after their
      //    session row): it starts at most every SWEEP_INTERVAL_MS and walks 32 rows per tick.
      if (!entry.sweeping && entry.caughtUp && entry.queue.size === 0 && sweepDue) {
        entry.sweeping = true;
        entry.sweepStartedAt = budget.now;
        state.sweep = {};
      }
      if (entry.sweeping && entry.queue.size === 0 && rows < sessionRows) {
        rows += this.sweepSessions(entry, db, state, sessionRows - rows);
      }
      // 3. Messages of queued sessions, page by page; one read to the end at this data version
      //    has nothing new (the sweep and the scan both queue every session once).
      let found = 0;
      for (const [sessionId, row] of entry.queue) {
        if (batch.records.length >= budget.maxRecords || budget.expired()) break;
        if (entry.readAt.get(sessionId) === version) {
          entry.queue.delete(sessionId);
          continue;
        }
        const more = this.messages(entry, db, version, sessionId, row, view, batch);
        found += more.rows;
        if (!more.more) entry.queue.delete(sessionId);
        else break;
      }
      if (found > 0) entry.sweepDone = false;
    } catch {
      // A database being rewritten or locked: try again next tick with a fresh connection.
      entry.db?.close();
      entry.db = null;
      return { sessionRows: rows, idle: false };
    }
    const next = this.shared.rowCheckpoint(key, state);
    if (next.state !== cp?.state) batch.checkpoints.push(next);
    return { sessionRows: rows, idle: databaseIdle(entry) };
  }

  /** Queues the sessions changed since the cursors (at most `sessionRows`); returns the rows read. */
  private scanSessions(
    entry: OpenDb,
    db: OpencodeDb,
    version: number,
    state: DbState,
    batch: SourceBatch,
    sessionRows: number,
  ): number {
    if (entry.caughtUp && entry.cleanAt === version) {
      entry.scannedClean = true;
      return 0;
    }
    let rows = 0;
    let changedAny = false;
    let complete = true;
    for (const table of db.sessionTables()) {
      if (rows >= sessionRows) {
        complete = false;
        break;
      }
      const listing = this.listing(db, state, table);
      const limit = sessionRows - rows;
      const changed = listing
        ? db.sessionsFrom(table, listing.rowid, limit)
        : db.changedSessions(table, state.cursors[table] ?? START, limit);
      if (listing && changed.length < limit) {
        delete state.listing![table];
        state.cursors[table] = listing.until;
      }
      for (const row of changed) {
        rows += 1;
        changedAny = true;
        if (listing) listing.rowid = row.__rowid;
        else state.cursors[table] = { t: Number(row["time_updated"] ?? 0), id: String(row["id"]) };
        if (table === "session" && db.schemaOf(String(row["id"])) === "v2") continue;
        this.shared.session(row, batch);
        entry.queue.set(String(row["id"]), row);
      }
    }
    entry.caughtUp = !changedAny;
    entry.scannedClean = !changedAny;
    entry.cleanAt = !changedAny && complete ? version : null;
    return rows;
  }

  /** The table's first listing, begun when the table has no change cursor yet; null once done. */
  private listing(db: OpencodeDb, state: DbState, table: "session" | "session_v2") {
    if (state.cursors[table] !== undefined) return null;
    state.listing ??= {};
    return (state.listing[table] ??= { rowid: 0, until: db.newestChange(table) ?? START });
  }

  /** One step of the re-check sweep: queues the next sessions by rowid (at most `sessionRows`); returns the rows read. */
  private sweepSessions(entry: OpenDb, db: OpencodeDb, state: DbState, sessionRows: number): number {
    let rows = 0;
    for (const table of db.sessionTables()) {
      const page = db.sessionIdsFrom(table, state.sweep[table] ?? 0, sessionRows - rows);
      for (const { rowid, id } of page) {
        rows += 1;
        state.sweep[table] = rowid;
        if (table === "session" && db.schemaOf(id) === "v2") continue;
        entry.queue.set(id, null);
      }
      if (rows >= sessionRows) break;
    }
    if (rows === 0) {
      entry.sweeping = false;
      entry.sweepDone = true;
    }
    return rows;
  }

  private messages(
    entry: OpenDb,
    db: OpencodeDb,
    version: number,
    sessionId: string,
    row: SessionRow | null,
    view: IndexView,
    batch: SourceBatch,
  ): { rows: number; more: boolean } {
    const key = sessionKey(entry.file, sessionId);
    const cp = view.checkpoint(this.shared.name, key);
    const schema = db.schemaOf(sessionId);
    let state = parseState<SessionState>(cp);
    if (!state || state.schema !== schema) state = { v: 1, schema, messages: START, parts: START };
    if (!this.shared.conversations.has(sessionId)) {
      const known = row ?? db.sessionById(sessionId);
      if (known) this.shared.session(known, batch);
    }
    const conversation = this.shared.conversationOf(sessionId);
    let rows = 0;
    let more = false;
    if (schema === "v2") {
      const page = db.v2Messages(sessionId, state.messages);
      for (const message of page.rows) {
        rows += 1;
        this.shared.emit(mapOpencodeV2Message(message), conversation, batch);
        this.shared.retain(batch, entry.file, conversation.id, "session_message", message, []);
        state.messages = { t: Number(message["time_updated"] ?? 0), id: String(message["id"]) };
      }
      more = page.more;
    } else {
      const messages = db.v1ChangedMessages(sessionId, state.messages);
      const parts = db.v1ChangedParts(sessionId, state.parts);
      const events = [
        ...messages.map((m) => ({ t: m.time_updated, id: m.id, message: m.id, kind: "m" as const })),
        ...parts.map((p) => ({ t: p.time_updated, id: p.id, message: p.message_id, kind: "p" as const })),
      ].sort(
        (a, b) => a.t - b.t || (a.kind === b.kind ? 0 : a.kind === "m" ? -1 : 1) || (a.id < b.id ? -1 : 1),
      );
      const done = new Set<string>();
      let partCount = 0;
      let bytes = 0;
      let stopped = false;
      for (const event of events) {
        if (!done.has(event.message)) {
          if (done.size > 0 && (partCount >= PAGE_MAX_ROWS || bytes >= PAGE_MAX_BYTES)) {
            stopped = true;
            break;
          }
          const message = db.v1Message(event.message);
          const messageParts = message ? db.v1Parts(event.message) : [];
          done.add(event.message);
          if (message) {
            rows += 1;
            partCount += messageParts.length;
            bytes += rowBytes(message) + messageParts.reduce((n, p) => n + rowBytes(p), 0);
            this.shared.emit(mapOpencodeV1Message(message, messageParts), conversation, batch);
            this.shared.retain(batch, entry.file, conversation.id, "message", message, messageParts);
          }
        }
        if (event.kind === "m") state.messages = { t: event.t, id: event.id };
        else state.parts = { t: event.t, id: event.id };
      }
      more = stopped || messages.length >= PAGE_MAX_ROWS || parts.length >= PAGE_MAX_ROWS;
    }
    this.shared.doneRows += rows;
    if (rows > 0 || !cp) {
      batch.checkpoints.push(this.shared.rowCheckpoint(key, state));
    }
    if (!more) entry.readAt.set(sessionId, version);
    return { rows, more };
  }
}
