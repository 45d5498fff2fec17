/**
 * opencode history under OPENCODE_DB or $XDG_DATA_HOME/opencode: every `opencode*.db` (1.x
 * `session`/`message`/`part`, 2.x `session_v2`/`session_message`; v2 is read for the sessions
 * it holds only when `session_message` has rows, so an upgraded database is never counted
 * twice) and the pre-1.2 `storage/` JSON files (deduplicated with the database on message id),
 * including the oldest `project/<dir>/storage/session/` layout that opencode later copied there.
 *
 * Bounds per tick: at most 32 session rows (changed sessions first, then a slow re-check
 * sweep that catches messages updated after their session row), at most 32 storage entries
 * walked, and message pages of at most 200 rows / 512 KiB of JSON. Databases are opened
 * read-only: a live `-wal` is read, never checkpointed.
 *
 * A rebuild replays the retained rows and files of sessions that neither a database nor
 * storage/ holds any more (deleted by opencode or by hand), once the live data is caught up.
 *
 * Conversation `opencode:<sessionId>` (parent from parent_id). Records are keyed by message
 * id: hit id `transcript:opencode:<sessionId>:<messageId>`, cursor the message id.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { agentRoots, type Env } from "../../config/paths.js";
import type {
  Budget,
  ConversationRef,
  IndexView,
  RawChunk,
  RetainedChunk,
  Source,
  SourceBatch,
  SourceCheckpoint,
  SourceRecord,
} from "../types.js";
import { emptyBatch } from "../types.js";
import { ProjectResolver } from "../files/project.js";
import { BoundedWalker } from "../files/walker.js";
import { DISCOVERY_INTERVAL_MS } from "../files/jsonl-source.js";
import { ioRetryAt, isMissing } from "../shared/io-retry.js";
import { isRecord, parseJson, str } from "../shared/json.js";
import {
  mapOpencodeSessionRow,
  mapOpencodeStorageMessage,
  mapOpencodeStorageSession,
  mapOpencodeV1Message,
  mapOpencodeV2Message,
  type OpencodeRecord,
  type OpencodeRow,
  type OpencodeSessionMeta,
} from "./record.js";
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
import { conversationId, transcriptHitId } from "../ids.js";

export const OPENCODE_SOURCE = "opencode";
export const OPENCODE_AGENT = "opencode";

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

interface StorageState {
  v: 1;
  /** Highest message id read (ids ascend with time). */
  last: string;
  dirMtime: number;
  sessionMtime: number;
}

/** A storage/ session waiting to be tried again after a file could not be read (in memory only). */
interface StorageRetry {
  failures: number;
  /** When the session is looked at again, whether or not its folder changed. */
  at: number;
  /** The file and mtime last counted malformed, so a retried failure is counted once. */
  counted: string;
}

interface StorageFiles {
  session: string;
  messages: string;
  /** The folder of one message's part files. */
  parts: (messageId: string) => string;
  /** From the oldest layout, `project/<dir>/storage/session/…`, which a newer copy replaces. */
  legacy: boolean;
}

/**
 * The oldest layout, which opencode's own first storage migration copied into `storage/`:
 * `project/<dir>/storage/session/info/<sessionId>.json`, `…/session/message/<sessionId>/<messageId>.json`
 * and `…/session/part/<sessionId>/<messageId>/<partId>.json`.
 */
const LEGACY_FOLDERS = ["storage", "session", "info"];

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

/**
 * Replaying the retained rows and files of sessions whose database rows and storage/ files are
 * gone (a rebuild after opencode or the user deleted them). `list` is read once the live data
 * is caught up; a session replayed to its end gets a checkpoint, which a reindex reset clears.
 */
interface Replay {
  list: ConversationRef[] | null;
  position: number;
  current: { ref: ConversationRef; session: string; afterId: number } | null;
  done: boolean;
}

/** Retained chunks read per replay step. */
const REPLAY_PAGE = 200;

/** A retained storage/ message file: `…/storage/message/<sessionId>/<messageId>.json`. */
const STORAGE_MESSAGE = /[\\/]storage[\\/]message[\\/][^\\/]+[\\/]([^\\/]+)\.json$/;
/** The same in the oldest layout: `…/storage/session/message/<sessionId>/<messageId>.json`. */
const LEGACY_MESSAGE = /[\\/]storage[\\/]session[\\/]message[\\/]([^\\/]+)[\\/]([^\\/]+)\.json$/;

/** A re-check sweep of every session starts at most this often. */
export const SWEEP_INTERVAL_MS = 30_000;

const parseState = <T>(cp: SourceCheckpoint | undefined): T | null => {
  if (!cp?.state) return null;
  const parsed = parseJson(cp.state);
  return parsed.ok ? (parsed.value as T) : null;
};

/** Caught up, nothing queued, and the last re-check sweep finished with nothing read since. */
const databaseIdle = (entry: OpenDb): boolean =>
  entry.caughtUp && !entry.sweeping && entry.queue.size === 0 && entry.sweepDone;

const dbKey = (file: string) => `db:${file}`;
const sessionKey = (file: string, id: string) => `db:${file}#${id}`;
const storageKey = (id: string) => `storage:${id}`;
const replayKey = (id: string) => `replayed:${id}`;

export interface OpencodeSourceOptions {
  dataDir?: string;
  dbFile?: string | null;
}

export class OpencodeSource implements Source {
  readonly name = OPENCODE_SOURCE;
  readonly agent = OPENCODE_AGENT;
  readonly retainsHistory = true;
  private readonly dataDir: string;
  private readonly explicitDb: string | null;
  private readonly resolver = new ProjectResolver();
  private readonly dbs = new Map<string, OpenDb>();
  private lastDbScan = -Infinity;
  private readonly walker: BoundedWalker;
  /** Storage sessions known: session id → its session JSON file and message folder. */
  private readonly storage = new Map<string, StorageFiles>();
  private readonly partsDir: string;
  private readonly legacyRoot: string;
  private readonly storageBacklog = new Set<string>();
  private storageOrder: string[] = [];
  private storagePosition = 0;
  private storageDirty = true;
  private doneRows = 0;
  private cleanSweeps = 0;
  private storageSweepChanged = false;
  private storageSweptClean = false;
  /** The last change-detection sweep found no change, and none was found since. */
  private storageQuiet = false;
  private readonly storageCadence = new ScanCadence();
  /** storage/ sessions whose last read stopped at a file that could not be read, by session id. */
  private readonly storageRetries = new Map<string, StorageRetry>();
  private readonly replay: Replay = { list: null, position: 0, current: null, done: false };

  constructor(env: Env, options: OpencodeSourceOptions = {}) {
    const roots = agentRoots(env);
    this.dataDir = options.dataDir ?? roots.opencodeDataDir;
    this.explicitDb = options.dbFile !== undefined ? options.dbFile : roots.opencodeDb;
    const sessionDir = path.join(this.dataDir, "storage", "session");
    this.partsDir = path.join(this.dataDir, "storage", "part");
    this.legacyRoot = path.join(this.dataDir, "project");
    this.walker = new BoundedWalker(
      () => [sessionDir, this.legacyRoot],
      ({ name, depth, isDirectory, isFile, root }) => {
        // storage/session/<projectId>/<sessionId>.json, or project/<dir>/storage/session/info/<sessionId>.json
        const fileDepth = root === sessionDir ? 1 : LEGACY_FOLDERS.length + 1;
        if (depth < fileDepth) {
          const folder = root === sessionDir || depth === 0 || name === LEGACY_FOLDERS[depth - 1];
          return isDirectory && folder ? "descend" : "skip";
        }
        return depth === fileDepth && isFile && name.endsWith(".json") ? "file" : "skip";
      },
    );
  }

  close(): void {
    this.walker.close();
    for (const entry of this.dbs.values()) entry.db?.close();
    this.dbs.clear();
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const batch = emptyBatch();
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
    if (!this.syncStorage(view, batch, budget)) idle = false;
    if (idle && !this.replay.done && this.databasesReadable() && !this.replayRetained(view, batch, budget)) {
      idle = false;
    }
    batch.progress = {
      filesKnown: this.dbs.size + this.storage.size,
      backlogFiles: [...this.dbs.values()].reduce((n, e) => n + e.queue.size, 0) + this.storageBacklog.size,
      backlogBytes: 0,
      doneBytes: this.doneRows,
      discovered: this.walker.sweeps > 0,
      cleanSweeps: this.cleanSweeps,
    };
    batch.idle = idle;
    // A clean sweep: every database scanned and found unchanged, and the storage/ files
    // swept, since the last one was counted.
    const dbs = [...this.dbs.values()].filter((e) => e.db !== null);
    if (
      idle &&
      dbs.every((e) => e.scannedClean) &&
      (this.storageOrder.length === 0 || this.storageSweptClean)
    ) {
      this.cleanSweeps += 1;
      this.storageSweptClean = false;
      for (const e of dbs) e.scannedClean = false;
    }
    return batch;
  }

  // ------------------------------------------------------------------ databases

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
    const cp = view.checkpoint(this.name, key);
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
    const next = this.rowCheckpoint(key, state);
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
        this.session(row, batch);
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

  /** A database or storage cursor: row positions live in the state, not in byte offsets. */
  private rowCheckpoint(key: string, state: unknown): SourceCheckpoint {
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

  private conversationFor(meta: OpencodeSessionMeta): ConversationRef {
    if (meta.model?.modelID) this.rowModels.add(meta.id);
    return {
      id: conversationId(OPENCODE_AGENT, meta.id),
      source: OPENCODE_SOURCE,
      agent: OPENCODE_AGENT,
      kind: "transcript",
      project: this.resolver.resolve(meta.directory),
      session: meta.id,
      parent: meta.parentId ? conversationId(OPENCODE_AGENT, meta.parentId) : null,
      title: meta.title ?? null,
      branch: null,
      model: meta.model?.modelID ?? null,
    };
  }

  private readonly conversations = new Map<string, ConversationRef>();
  /** Sessions whose own row names their model (see emit). */
  private readonly rowModels = new Set<string>();

  /** Conversation metadata and aliases of one session row. */
  private session(row: SessionRow, batch: SourceBatch): ConversationRef | null {
    const meta = mapOpencodeSessionRow(row);
    if (!meta) {
      batch.counters.malformed += 1;
      return null;
    }
    const ref = this.conversationFor(meta);
    this.conversations.set(meta.id, ref);
    batch.conversations.push(ref);
    if (meta.title) batch.aliases.push({ alias: meta.title, session: meta.id, source: this.name });
    if (meta.slug) batch.aliases.push({ alias: meta.slug, session: meta.id, source: this.name });
    if (meta.parentId) batch.aliases.push({ alias: meta.parentId, session: meta.id, source: this.name });
    return ref;
  }

  private conversationOf(sessionId: string): ConversationRef {
    return (
      this.conversations.get(sessionId) ?? {
        id: conversationId(OPENCODE_AGENT, sessionId),
        source: OPENCODE_SOURCE,
        agent: OPENCODE_AGENT,
        kind: "transcript",
        project: null,
        session: sessionId,
        parent: null,
        title: null,
      }
    );
  }

  /** One page of a session's changed messages. */
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
    const cp = view.checkpoint(this.name, key);
    const schema = db.schemaOf(sessionId);
    let state = parseState<SessionState>(cp);
    if (!state || state.schema !== schema) state = { v: 1, schema, messages: START, parts: START };
    if (!this.conversations.has(sessionId)) {
      const known = row ?? db.sessionById(sessionId);
      if (known) this.session(known, batch);
    }
    const conversation = this.conversationOf(sessionId);
    let rows = 0;
    let more = false;
    if (schema === "v2") {
      const page = db.v2Messages(sessionId, state.messages);
      for (const message of page.rows) {
        rows += 1;
        this.emit(mapOpencodeV2Message(message), conversation, batch);
        this.retain(batch, entry.file, conversation.id, "session_message", message, []);
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
            this.emit(mapOpencodeV1Message(message, messageParts), conversation, batch);
            this.retain(batch, entry.file, conversation.id, "message", message, messageParts);
          }
        }
        if (event.kind === "m") state.messages = { t: event.t, id: event.id };
        else state.parts = { t: event.t, id: event.id };
      }
      more = stopped || messages.length >= PAGE_MAX_ROWS || parts.length >= PAGE_MAX_ROWS;
    }
    this.doneRows += rows;
    if (rows > 0 || !cp) {
      batch.checkpoints.push(this.rowCheckpoint(key, state));
    }
    if (!more) entry.readAt.set(sessionId, version);
    return { rows, more };
  }

  private emit(record: OpencodeRecord, conversation: ConversationRef, batch: SourceBatch): void {
    if (record.type === "skip") {
      if (record.reason === "malformed" || record.reason === "no-id") batch.counters.malformed += 1;
      else batch.counters.skipped += 1;
      return;
    }
    let ref =
      record.sessionId === conversation.session ? conversation : this.conversationOf(record.sessionId);
    // 2.x session rows carry no model; each message names its own. The conversation takes the
    // latest one, as Claude Code's and Codex's do, unless its session row names one: that wins
    // every time it is read, so reading the session again changes nothing.
    const model = record.model?.modelID;
    if (model && !this.rowModels.has(record.sessionId)) {
      const known = this.conversations.get(record.sessionId) ?? ref;
      if (known.model !== model) {
        ref = { ...known, model };
        this.conversations.set(record.sessionId, ref);
        batch.conversations.push(ref);
      } else ref = known;
    }
    const out: SourceRecord = {
      sourceKey: record.id,
      hitId: transcriptHitId(OPENCODE_AGENT, record.sessionId, record.id),
      conversation: ref,
      at: record.at ?? record.updatedAt ?? 0,
      role: record.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: record.turn },
      cursor: record.id,
      message: null,
      job: null,
      run: null,
      model: record.model?.modelID ?? null,
      branch: null,
    };
    batch.records.push(out);
  }

  /**
   * Retains the rows exactly as read: one JSON line per message with its columns (the `data`
   * column kept as the very string stored) and, for v1, its parts.
   */
  private retain(
    batch: SourceBatch,
    file: string,
    conversation: string,
    table: string,
    row: OpencodeRow,
    parts: OpencodeRow[],
  ): void {
    const line = JSON.stringify(parts.length > 0 ? { table, row, parts } : { table, row });
    const at = Number(row["time_created"] ?? 0) || null;
    const chunk: RawChunk = {
      source: this.name,
      file,
      conversation,
      offset: Number(row["time_updated"] ?? 0),
      unit: "row",
      bytes: Buffer.from(`${line}\n`, "utf8"),
      epoch: 0,
      firstAt: at,
      lastAt: at,
      dedupe: true,
    };
    batch.rawChunks.push(chunk);
  }

  // ------------------------------------------------------------------ retained sessions

  /** Every database still on disk is open: a locked one would make its sessions look gone. */
  private databasesReadable(): boolean {
    for (const entry of this.dbs.values()) if (!entry.db && existsSync(entry.file)) return false;
    return true;
  }

  /** A session some database or the storage/ files still hold: read live, never replayed. */
  private isLive(sessionId: string): boolean {
    if (this.storage.has(sessionId)) return true;
    for (const entry of this.dbs.values()) {
      if (entry.db?.sessionById(sessionId)) return true;
    }
    return false;
  }

  /**
   * One bounded step of replaying retained sessions that no database or storage/ file holds
   * any more, through the same mappers as a live read; true when every session is done.
   */
  private replayRetained(view: IndexView, batch: SourceBatch, budget: Budget): boolean {
    const r = this.replay;
    r.list ??= view.retainedConversations(this.name);
    let checked = 0;
    while (batch.records.length < budget.maxRecords && !budget.expired()) {
      if (!r.current) {
        if (r.position >= r.list.length) {
          r.done = true;
          r.list = null;
          return true;
        }
        if (checked >= budget.maxSessionRows) return false;
        const ref = r.list[r.position++]!;
        checked += 1;
        const session = ref.id.slice(`${OPENCODE_SOURCE}:`.length);
        if (this.isLive(session) || view.checkpoint(this.name, replayKey(session))) continue;
        this.conversations.set(session, ref);
        r.current = { ref, session, afterId: 0 };
      }
      const current = r.current;
      const page = view.retainedChunks(this.name, current.ref.id, current.afterId, REPLAY_PAGE);
      for (const chunk of page) {
        current.afterId = chunk.id;
        this.replayChunk(view, chunk, current.ref, batch);
      }
      if (page.length < REPLAY_PAGE) {
        batch.checkpoints.push(this.rowCheckpoint(replayKey(current.session), { v: 1 }));
        r.current = null;
      }
    }
    return false;
  }

  /** A retained message row (with its v1 parts), or a storage/ message file with its parts' newest copies. */
  private replayChunk(view: IndexView, chunk: RetainedChunk, ref: ConversationRef, batch: SourceBatch): void {
    if (chunk.unit === "row") {
      const parsed = parseJson(chunk.bytes.toString("utf8"));
      const line = parsed.ok
        ? (parsed.value as { table?: unknown; row?: OpencodeRow; parts?: OpencodeRow[] })
        : null;
      if (!line?.row) {
        batch.counters.malformed += 1;
      } else if (line.table === "session_message") {
        this.emit(mapOpencodeV2Message(line.row), ref, batch);
      } else if (line.table === "message") {
        this.emit(mapOpencodeV1Message(line.row, line.parts ?? []), ref, batch);
      }
      return;
    }
    const legacy = LEGACY_MESSAGE.exec(chunk.file);
    const match = legacy ?? STORAGE_MESSAGE.exec(chunk.file);
    if (!match) return; // a session or part file: read with its message
    const message = parseJson(chunk.bytes.toString("utf8"));
    if (!message.ok) {
      batch.counters.malformed += 1;
      return;
    }
    const storage = chunk.file.slice(0, match.index + "/storage".length);
    const partDir = legacy
      ? path.join(storage, "session", "part", legacy[1]!, legacy[2]!)
      : path.join(storage, "part", match[1]!);
    const parts: unknown[] = [];
    for (const part of view.retainedUnder(this.name, partDir)) {
      const parsed = parseJson(part.bytes.toString("utf8"));
      if (parsed.ok) parts.push(parsed.value);
      else batch.counters.malformed += 1;
    }
    this.emit(mapOpencodeStorageMessage(message.value, parts), ref, batch);
  }

  // ------------------------------------------------------------------ storage/ JSON (before 1.2)

  /** Returns true when storage has nothing left to do right now. */
  private syncStorage(view: IndexView, batch: SourceBatch, budget: Budget): boolean {
    if (this.walker.startIfDue(budget.now, DISCOVERY_INTERVAL_MS)) {
      const step = this.walker.step(budget.maxEntries, budget.now);
      for (const file of step.files) this.registerStorage(file);
    }
    // A change-detection sweep is the counterpart of a database scan: once one found no change,
    // the next starts on the same cadence (each entry costs two stat calls, and ticks run back
    // to back in a backfill); at once, though, when the backlog has drained since the last one
    // ended, as idle and clean sweeps wait for a sweep that ends with nothing waiting.
    const due = this.storageCadence.due(budget);
    const sweeping = this.storagePosition > 0;
    const drained = this.storageDirty && this.storageBacklog.size === 0;
    if (sweeping || !this.storageQuiet || drained || due) {
      const started = performance.now();
      const ended = this.detectStorageChanges(view, budget.maxEntries, budget.now);
      this.storageCadence.spent(performance.now() - started);
      if (ended) this.storageCadence.looked(budget.now);
    }
    if (this.storageOrder.length === 0) this.storageDirty = false;
    let files = 0;
    for (const id of [...this.storageBacklog]) {
      if (files >= budget.maxFiles || batch.records.length >= budget.maxRecords || budget.expired()) break;
      files += 1;
      const more = this.storageSession(view, id, batch, budget);
      this.storageBacklog.delete(id);
      if (more) this.storageBacklog.add(id);
    }
    return !this.walker.active && this.storageBacklog.size === 0 && !this.storageDirty;
  }

  /**
   * A session file found by the walk. A session opencode copied out of the oldest layout is read
   * from its copy in storage/, which is the one opencode kept writing to.
   */
  private registerStorage(file: string): void {
    const id = path.basename(file, ".json");
    const known = this.storage.get(id);
    const legacy = file.startsWith(this.legacyRoot + path.sep);
    if (known && (legacy || !known.legacy)) return;
    const legacyDir = path.dirname(path.dirname(file)); // project/<dir>/storage/session
    this.storage.set(id, {
      session: file,
      messages: legacy
        ? path.join(legacyDir, "message", id)
        : path.join(this.dataDir, "storage", "message", id),
      parts: legacy
        ? (messageId) => path.join(legacyDir, "part", id, messageId)
        : (messageId) => path.join(this.partsDir, messageId),
      legacy,
    });
    if (!known) this.storageOrder.push(id);
    this.storageBacklog.add(id);
  }

  /**
   * One step of the round robin over storage sessions: at most `entries` checked, up to the
   * sweep's end; true when the sweep ended.
   */
  private detectStorageChanges(view: IndexView, entries: number, now: number): boolean {
    const n = this.storageOrder.length;
    for (let i = 0; i < Math.min(entries, n); i++) {
      const id = this.storageOrder[this.storagePosition++]!;
      if (!this.storageBacklog.has(id) && this.storageChanged(view, id, now)) {
        this.storageBacklog.add(id);
        this.storageSweepChanged = true;
        this.storageQuiet = false;
      }
      if (this.storagePosition >= n) {
        this.storageSweptClean = !this.storageSweepChanged && this.storageBacklog.size === 0;
        this.storageQuiet = !this.storageSweepChanged;
        this.storageDirty = this.storageBacklog.size > 0;
        this.storageSweepChanged = false;
        this.storagePosition = 0;
        return true;
      }
    }
    return false;
  }

  private storageChanged(view: IndexView, id: string, now: number): boolean {
    // A session waiting out a failed read is looked at again when its retry is due, not before.
    const retry = this.storageRetries.get(id);
    if (retry) return now >= retry.at;
    const state = parseState<StorageState>(view.checkpoint(this.name, storageKey(id)));
    if (!state) return true;
    const files = this.storage.get(id)!;
    return mtimeOf(files.messages) !== state.dirMtime || mtimeOf(files.session) !== state.sessionMtime;
  }

  /**
   * Reads a storage session's new messages, bounded; true when more are waiting. A file that
   * exists but cannot be read stops the read before its message, which is tried again after a
   * backoff (`storageRetries`); so is the newest message when it does not parse, as opencode may
   * be writing it. An older message that does not parse is counted and passed.
   */
  private storageSession(view: IndexView, id: string, batch: SourceBatch, budget: Budget): boolean {
    const key = storageKey(id);
    const state: StorageState = parseState<StorageState>(view.checkpoint(this.name, key)) ?? {
      v: 1,
      last: "",
      dirMtime: -1,
      sessionMtime: -1,
    };
    const files = this.storage.get(id)!;
    const { session: sessionFile, messages: messageDir } = files;
    const failed = (file: string): false => {
      this.storageFailed(id, file, batch, budget.now);
      return false;
    };
    const sessionBytes = readStorageFile(sessionFile);
    if (sessionBytes === "failed") return failed(sessionFile);
    const sessionJson = sessionBytes ? parseJson(sessionBytes.toString("utf8")) : { ok: false as const };
    const meta = sessionJson.ok ? mapOpencodeStorageSession(sessionJson.value) : undefined;
    const sessionMtime = mtimeOf(sessionFile);
    let conversation = this.conversationOf(id);
    if (meta && sessionMtime !== state.sessionMtime) {
      conversation = this.conversationFor(meta);
      this.conversations.set(id, conversation);
      batch.conversations.push(conversation);
      if (meta.title) batch.aliases.push({ alias: meta.title, session: id, source: this.name });
      if (meta.parentId) batch.aliases.push({ alias: meta.parentId, session: id, source: this.name });
      if (sessionBytes) this.retainFile(batch, sessionFile, conversation.id, sessionBytes, meta.createdAt);
    } else if (meta && !this.conversations.has(id)) {
      conversation = this.conversationFor(meta);
      this.conversations.set(id, conversation);
    }
    const dirMtime = mtimeOf(messageDir);
    const names = listJson(messageDir);
    if (names === "failed") return failed(messageDir);
    let more = false;
    /** The file that stopped this read, when one could not be read. */
    let failedAt: string | null = null;
    let count = 0;
    // Emitted after the page: a session file without a directory (the oldest layout's) takes
    // its project from the first message that records a cwd, and every record carries it.
    const records: OpencodeRecord[] = [];
    let cwd: string | undefined;
    for (const [i, name] of names.entries()) {
      const messageId = name.slice(0, -".json".length);
      if (messageId <= state.last) continue;
      if (count >= PAGE_MAX_ROWS || batch.records.length >= budget.maxRecords || budget.expired()) {
        more = true;
        break;
      }
      const file = path.join(messageDir, name);
      const bytes = readStorageFile(file);
      const parsed = bytes === "failed" || bytes === null ? null : parseJson(bytes.toString("utf8"));
      if (bytes === "failed" || (parsed && !parsed.ok && i === names.length - 1)) {
        failedAt = file;
        break;
      }
      const partDir = files.parts(messageId);
      const partNames = listJson(partDir);
      if (partNames === "failed") {
        failedAt = partDir;
        break;
      }
      const parts: unknown[] = [];
      const partFiles: { file: string; bytes: Buffer }[] = [];
      for (const partName of partNames) {
        const partFile = path.join(partDir, partName);
        const partBytes = readStorageFile(partFile);
        if (partBytes === "failed") {
          failedAt = partFile;
          break;
        }
        if (!partBytes) continue; // gone since the listing: no loss
        partFiles.push({ file: partFile, bytes: partBytes });
        const part = parseJson(partBytes.toString("utf8"));
        if (part.ok) parts.push(part.value);
        else batch.counters.malformed += 1;
      }
      if (failedAt !== null) break;
      count += 1;
      if (parsed && !parsed.ok) {
        batch.counters.malformed += 1;
      } else if (parsed) {
        const record = mapOpencodeStorageMessage(parsed.value, parts);
        records.push(record);
        cwd ??= messageCwd(parsed.value);
        const at = record.type === "turn" ? record.at : null;
        this.retainFile(batch, file, conversation.id, bytes as Buffer, at);
        for (const part of partFiles) this.retainFile(batch, part.file, conversation.id, part.bytes, at);
      }
      state.last = messageId;
      this.doneRows += 1;
    }
    if (conversation.project === null && cwd) {
      conversation = { ...conversation, project: this.resolver.resolve(cwd) };
      this.conversations.set(id, conversation);
      batch.conversations.push(conversation);
    }
    for (const record of records) this.emit(record, conversation, batch);
    if (failedAt !== null) failed(failedAt);
    else this.storageRetries.delete(id);
    if (!more && failedAt === null) state.dirMtime = dirMtime;
    state.sessionMtime = sessionMtime;
    batch.checkpoints.push(this.rowCheckpoint(key, state));
    return more;
  }

  /** Schedules a storage/ session's next try after a failed read; counted once per file and mtime. */
  private storageFailed(id: string, file: string, batch: SourceBatch, now: number): void {
    const retry = this.storageRetries.get(id) ?? { failures: 0, at: 0, counted: "" };
    retry.failures += 1;
    retry.at = ioRetryAt(now, retry.failures);
    const mark = `${file}:${mtimeOf(file)}`;
    if (retry.counted !== mark) batch.counters.malformed += 1;
    retry.counted = mark;
    this.storageRetries.set(id, retry);
  }

  private retainFile(
    batch: SourceBatch,
    file: string,
    conversation: string,
    bytes: Buffer,
    at: number | null,
  ): void {
    batch.rawChunks.push({
      source: this.name,
      file,
      conversation,
      offset: 0,
      bytes,
      epoch: 0,
      firstAt: at,
      lastAt: at,
      dedupe: true,
    });
  }
}

/** The working folder an assistant message of the storage/ era records (`path.cwd`, else `path.root`). */
function messageCwd(message: unknown): string | undefined {
  const where = isRecord(message) ? message["path"] : undefined;
  return isRecord(where) ? (str(where["cwd"]) ?? str(where["root"])) : undefined;
}

function mtimeOf(file: string): number {
  try {
    return Math.floor(statSync(file).mtimeMs);
  } catch {
    return -1;
  }
}

/** A storage/ file's bytes; null when it is gone, "failed" when it is there but would not read. */
function readStorageFile(file: string): Buffer | null | "failed" {
  try {
    return readFileSync(file);
  } catch (error) {
    return isMissing(error) ? null : "failed";
  }
}

/** The JSON files of a storage/ folder, sorted; none when it is gone, "failed" when unlistable. */
function listJson(dir: string): string[] | "failed" {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort();
  } catch (error) {
    return isMissing(error) ? [] : "failed";
  }
}

export function createOpencodeSource(env: Env, options: OpencodeSourceOptions = {}): OpencodeSource {
  return new OpencodeSource(env, options);
}
