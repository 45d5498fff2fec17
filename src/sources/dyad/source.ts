/**
 * Dyad-shaped chat databases (apps, chats, messages) in standalone mode: Dyad's own userData
 * sqlite.db when present, plus the databases registered in config.json. Each database is one
 * source, opened read-only (a live WAL is read, never checkpointed; nothing is written).
 *
 * Dyad's messages table has no update time and no index besides its primary key, and users
 * edit and delete chats and messages on purpose, so the source works by bounded reconcile
 * passes over primary-key ranges of RANGE_IDS message ids:
 * - each range has a checkpoint holding its fingerprint (count, sum of ids, chat ids, content
 *   bytes and times) and, per message, its chat and content size;
 * - a tick checks the newest ranges (new and streaming messages) and the next ranges of the
 *   running pass (at most MAX_RANGES_PER_TICK, and the batch's record, byte and time budget);
 *   a pass restarts every RECONCILE_INTERVAL_MS (back to back in a foreground backfill);
 * - a range whose fingerprint differs is read again: new or resized messages are written, and
 *   messages gone from it are reported as deletions, so a message or chat the user deleted
 *   leaves the index within one pass — unlike a transcript a CLI cleans up, which stays;
 * - chat rows are compared with a per-chat checkpoint (app, title, app path), so a renamed
 *   chat's documents follow its new title.
 * Edits that keep a message's byte length and time are not seen (documented limitation).
 *
 * Conversation `chat:<source>:<chatId>`; records keyed by message id, hit id
 * `chat:<source>:<chatId>:<messageId>`, kind `chat`, app and chat ids set, `message` the
 * message id. The project is the app's folder (absolute, or relative to Dyad's apps folder)
 * resolved to its git root, so the project filter and the MCP server's app binding agree.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Statement } from "better-sqlite3";
import { agentRoots, type Env } from "../../platform/paths.js";
import { openSourceDatabase, type Db } from "../../store/open.js";
import { resolveProject } from "../../platform/project.js";
import type {
  Budget,
  ConversationRef,
  IndexView,
  Source,
  SourceBatch,
  SourceCheckpoint,
  SourceRecord,
} from "../types.js";
import { busyBatch, emptyBatch } from "../types.js";
import { KnownLoad } from "../known-load.js";
import { chatConversationId, chatHitId } from "../ids.js";
import { DYAD_AGENT, DYAD_SOURCE } from "./definition.js";

/** Message ids per reconcile range. */
export const RANGE_IDS = 128;
/** Ranges fingerprinted per tick at most (each is one primary-key range aggregate). */
export const MAX_RANGES_PER_TICK = 64;
/** Chat rows compared per tick at most. */
export const MAX_CHATS_PER_TICK = 256;
/** A reconcile pass over every range (catching edits and deletions) restarts this often. */
export const RECONCILE_INTERVAL_MS = 30_000;
/** A database that is missing or unreadable is looked for again this often. */
const REOPEN_INTERVAL_MS = 30_000;

/** config.json's Dyad settings (sources.dyad, dyadDatabases, dyadAppsDir). */
export interface DyadSettings {
  dyad: boolean;
  dyadDatabases: string[];
  dyadAppsDir?: string | undefined;
}

export interface DyadDatabase {
  /** Source name: `dyad` for Dyad's own database, `dyad-<hash>` for a registered one. */
  name: string;
  file: string;
  /** Dyad's apps folder: relative app paths resolve against it. */
  appsDir: string;
}

/** The Dyad-shaped databases of this machine: Dyad's userData sqlite.db and config's registered ones. */
export function dyadDatabases(env: Env, settings: DyadSettings | { sources: DyadSettings }): DyadDatabase[] {
  const config = "sources" in settings ? settings.sources : settings;
  const home = env.HOME || process.env.HOME || "/";
  const expand = (p: string) =>
    path.resolve(p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : p);
  const appsDir = expand(config.dyadAppsDir ?? path.join(home, "dyad-apps"));
  const own = path.join(agentRoots(env).dyadUserData, "sqlite.db");
  const out: DyadDatabase[] = [{ name: DYAD_SOURCE, file: own, appsDir }];
  for (const file of config.dyadDatabases) {
    const resolved = expand(file);
    if (out.some((d) => d.file === resolved)) continue;
    out.push({ name: dyadSourceName(resolved), file: resolved, appsDir });
  }
  return out;
}

/** The databases indexed as sources: Dyad's own unless config turns it off, and every registered one. */
export function indexedDyadDatabases(
  env: Env,
  settings: DyadSettings | { sources: DyadSettings },
): DyadDatabase[] {
  const on = "sources" in settings ? settings.sources.dyad : settings.dyad;
  return dyadDatabases(env, settings).filter((d) => d.name !== DYAD_SOURCE || on);
}

export function dyadSourceName(file: string): string {
  return `dyad-${createHash("sha256").update(file).digest("hex").slice(0, 8)}`;
}

export { chatConversationId, chatHitId };

/** The canonical project of an app folder (absolute, or relative to the apps folder). */
export function appProject(appPath: string, appsDir: string): string {
  return resolveProject(appFolder(appPath, appsDir));
}

/** An app's folder: its `path`, absolute or relative to Dyad's apps folder. */
export function appFolder(appPath: string, appsDir: string): string {
  return path.normalize(path.isAbsolute(appPath) ? appPath : path.join(appsDir, appPath));
}

interface Fingerprint {
  n: number;
  s: number;
  c: number;
  b: number;
  t: number;
}

interface RangeState extends Fingerprint {
  v: 1;
  /** Runs of consecutive message ids in one chat: [first, last, chatId]. */
  runs: [number, number, number][];
  /** Content bytes of each message, in id order. */
  lens: number[];
}

interface MessageRow {
  id: number;
  chatId: number;
  role: string;
  content: string;
  isCompactionSummary: number | null;
  createdAt: number;
}

interface ChatMeta {
  id: number;
  appId: number;
  title: string | null;
  createdAt: number;
  appPath: string | null;
}

const rangeKey = (r: number) => `r:${r}`;
const chatKey = (id: number) => `c:${id}`;
const sameFingerprint = (a: Fingerprint, b: Fingerprint) =>
  a.n === b.n && a.s === b.s && a.c === b.c && a.b === b.b && a.t === b.t;

function parseRange(cp: SourceCheckpoint | undefined): RangeState | null {
  if (!cp?.state) return null;
  try {
    const state = JSON.parse(cp.state) as RangeState;
    return state?.v === 1 && Array.isArray(state.runs) && Array.isArray(state.lens) ? state : null;
  } catch {
    return null;
  }
}

function* idsOf(state: RangeState): Generator<[number, number]> {
  for (const [first, last, chat] of state.runs) for (let id = first; id <= last; id++) yield [id, chat];
}

export class DyadSource implements Source {
  readonly name: string;
  readonly agent = DYAD_AGENT;
  private db: Db | null = null;
  private readonly statements = new Map<string, Statement>();
  private lastOpen = -Infinity;
  private readonly known: KnownLoad;
  /** Highest range holding a checkpoint (a pass covers up to it, so deletions at the end are seen). */
  private maxRange = -1;
  private passActive = false;
  private passStartedAt = -Infinity;
  private passPos = 0;
  private passEnd = -1;
  private chatPos = 0;
  private chatsDone = false;
  private passChanged = false;
  /** The last complete pass found nothing to change. */
  private lastPassClean = false;
  private passes = 0;
  private cleanSweeps = 0;
  private doneRows = 0;

  constructor(private readonly database: DyadDatabase) {
    this.name = database.name;
    this.known = new KnownLoad(database.name);
  }

  close(): void {
    this.db?.close();
    this.db = null;
    this.statements.clear();
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db!.prepare(sql)));
    return s;
  }

  private open(now: number): Db | null {
    if (this.db) return this.db;
    if (now - this.lastOpen < REOPEN_INTERVAL_MS) return null;
    this.lastOpen = now;
    if (!existsSync(this.database.file)) return null;
    try {
      const db = openSourceDatabase(this.database.file);
      const tables = new Set(
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      );
      if (!tables.has("messages") || !tables.has("chats") || !tables.has("apps")) {
        db.close();
        return null;
      }
      this.db = db;
      return db;
    } catch {
      return null;
    }
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const batch = emptyBatch();
    const db = this.open(budget.now);
    if (!db) {
      batch.progress = this.progress(0, false);
      return batch;
    }
    try {
      return this.sync(view, budget, batch);
    } catch {
      // The database went away or changed shape under us: look for it again later.
      this.close();
      this.lastOpen = budget.now;
      const fresh = emptyBatch();
      fresh.progress = this.progress(0, false);
      return fresh;
    }
  }

  private sync(view: IndexView, budget: Budget, batch: SourceBatch): SourceBatch {
    const noteRange = (cp: SourceCheckpoint) => {
      if (cp.key.startsWith("r:")) this.maxRange = Math.max(this.maxRange, Number(cp.key.slice(2)));
    };
    if (!this.known.done && !this.known.step(view, budget, { checkpoint: noteRange }))
      return busyBatch(this.progress(0, true));
    const maxId = (this.stmt("SELECT max(id) AS id FROM messages").get() as { id: number | null }).id ?? 0;
    const lastRange = Math.max(Math.floor(maxId / RANGE_IDS), this.maxRange);
    const chats = new Map<number, ChatMeta | null>();
    const seen = new Set<number>();
    let checked = 0;
    let bytes = 0;
    const full = () =>
      checked >= MAX_RANGES_PER_TICK ||
      batch.records.length >= budget.maxRecords ||
      bytes >= budget.maxBytes ||
      budget.expired();
    const check = (r: number) => {
      if (seen.has(r)) return; // already compared this tick (its checkpoint is not committed yet)
      seen.add(r);
      checked += 1;
      const result = this.syncRange(r, view, batch, chats);
      bytes += result.bytes;
      if (result.changed) this.passChanged = true;
    };

    // The newest ranges every tick: new messages and messages still streaming.
    const tail = Math.floor(maxId / RANGE_IDS);
    for (let r = Math.max(0, tail - 1); r <= tail; r++) check(r);

    // The reconcile pass: every range in turn, then every chat row.
    if (!this.passActive && (budget.thorough || budget.now - this.passStartedAt >= RECONCILE_INTERVAL_MS)) {
      this.passActive = true;
      this.passStartedAt = budget.now;
      this.passPos = 0;
      this.passEnd = lastRange;
      this.chatPos = 0;
      this.chatsDone = false;
      this.passChanged = false;
    }
    let busy = false;
    if (this.passActive) {
      this.passEnd = Math.max(this.passEnd, lastRange);
      while (this.passPos <= this.passEnd && !full()) check(this.passPos++);
      if (this.passPos <= this.passEnd) busy = true;
      else if (!this.chatsDone) this.syncChats(view, batch);
      if (this.passPos > this.passEnd && this.chatsDone) {
        this.passActive = false;
        this.passes += 1;
        this.lastPassClean = !this.passChanged;
        if (this.lastPassClean) this.cleanSweeps += 1;
      } else {
        busy = true;
      }
    }
    // A foreground backfill passes again right after each pass. Once one came out clean, the
    // next is only a check, and the source is idle while it finds nothing, as a file source is
    // between the stats of its polling sweep. Busy throughout, it was idle only on the tick a pass
    // ended; with a pass over several ticks (over MAX_CHATS_PER_TICK chats) that tick never came
    // together with the other sources' idle ticks, and the backfill never ended.
    batch.idle = !busy || (budget.thorough === true && this.lastPassClean && !this.passChanged);
    batch.progress = this.progress(this.passActive ? this.passEnd - this.passPos + 1 : 0, true);
    return batch;
  }

  private progress(backlog: number, known: boolean) {
    return {
      filesKnown: known ? 1 : 0,
      backlogFiles: backlog,
      backlogBytes: 0,
      doneBytes: this.doneRows,
      // A missing database counts as discovered (there is nothing to find); an open one once a pass completed.
      discovered: !known || this.passes > 0,
      cleanSweeps: known ? this.cleanSweeps : this.cleanSweeps++,
    };
  }

  /** Compares one range with its checkpoint and, when it differs, writes what changed. */
  private syncRange(
    r: number,
    view: IndexView,
    batch: SourceBatch,
    chats: Map<number, ChatMeta | null>,
  ): { changed: boolean; bytes: number } {
    const lo = r * RANGE_IDS;
    const hi = lo + RANGE_IDS;
    const fp = this.stmt(
      `SELECT count(*) AS n, coalesce(sum(id), 0) AS s, coalesce(sum(chat_id), 0) AS c,
         coalesce(sum(octet_length(content)), 0) AS b, coalesce(sum(created_at), 0) AS t
       FROM messages WHERE id >= ? AND id < ?`,
    ).get(lo, hi) as Fingerprint;
    const stored = parseRange(view.checkpoint(this.name, rangeKey(r)));
    if (stored ? sameFingerprint(fp, stored) : fp.n === 0) return { changed: false, bytes: 0 };

    const rows = this.stmt(
      `SELECT id, chat_id AS chatId, role, content, is_compaction_summary AS isCompactionSummary,
         created_at AS createdAt
       FROM messages WHERE id >= ? AND id < ? ORDER BY id`,
    ).all(lo, hi) as MessageRow[];
    const before = new Map<number, { chat: number; len: number }>();
    if (stored) {
      let i = 0;
      for (const [id, chat] of idsOf(stored)) before.set(id, { chat, len: stored.lens[i++] ?? -1 });
    }
    const state: RangeState = { v: 1, n: 0, s: 0, c: 0, b: 0, t: 0, runs: [], lens: [] };
    let bytes = 0;
    this.chatMeta([...new Set(rows.map((row) => row.chatId))], chats);
    const written = new Set<number>();
    for (const row of rows) {
      const len = Buffer.byteLength(row.content ?? "");
      state.n += 1;
      state.s += row.id;
      state.c += row.chatId;
      state.b += len;
      state.t += row.createdAt;
      state.lens.push(len);
      const run = state.runs.at(-1);
      if (run && run[1] === row.id - 1 && run[2] === row.chatId) run[1] = row.id;
      else state.runs.push([row.id, row.id, row.chatId]);
      const was = before.get(row.id);
      before.delete(row.id);
      if (was && was.chat === row.chatId && was.len === len) continue;
      const record = this.record(row, chats);
      if (record) {
        batch.records.push(record);
        written.add(row.chatId);
        bytes += len;
        this.doneRows += 1;
      } else {
        batch.counters.skipped += 1;
      }
    }
    // What the range held before and no longer does was deleted in the app.
    for (const [id, was] of before) {
      batch.deletions ??= [];
      batch.deletions.push({ conversation: chatConversationId(this.name, was.chat), sourceKey: String(id) });
    }
    // The chat metadata these records carry: the chat pass compares against it.
    for (const chatId of written) {
      const meta = chats.get(chatId);
      if (meta) batch.checkpoints.push(this.chatCheckpoint(meta));
    }
    batch.checkpoints.push({
      source: this.name,
      key: rangeKey(r),
      offset: hi,
      size: state.n,
      mtime: null,
      headHash: null,
      state: JSON.stringify(state),
    });
    this.maxRange = Math.max(this.maxRange, r);
    return { changed: true, bytes };
  }

  private chatMeta(ids: readonly number[], chats: Map<number, ChatMeta | null>): void {
    const wanted = ids.filter((id) => !chats.has(id));
    if (wanted.length === 0) return;
    const rows = this.db!.prepare(
      `SELECT c.id, c.app_id AS appId, c.title, c.created_at AS createdAt, a.path AS appPath
       FROM chats c LEFT JOIN apps a ON a.id = c.app_id
       WHERE c.id IN (${wanted.map(() => "?").join(",")})`,
    ).all(...wanted) as ChatMeta[];
    for (const id of wanted) chats.set(id, null);
    for (const row of rows) chats.set(row.id, row);
  }

  private readonly projects = new Map<string, string>();

  private project(appPath: string): string {
    let project = this.projects.get(appPath);
    if (project === undefined) {
      if (this.projects.size > 4096) this.projects.clear();
      this.projects.set(appPath, (project = appProject(appPath, this.database.appsDir)));
    }
    return project;
  }

  private ref(meta: ChatMeta): ConversationRef {
    return {
      id: chatConversationId(this.name, meta.id),
      source: this.name,
      agent: DYAD_AGENT,
      kind: "chat",
      project: meta.appPath ? this.project(meta.appPath) : null,
      session: null,
      parent: null,
      title: meta.title,
    };
  }

  private record(row: MessageRow, chats: Map<number, ChatMeta | null>): SourceRecord | null {
    if (row.role !== "user" && row.role !== "assistant") return null;
    const meta = chats.get(row.chatId);
    if (!meta) return null; // a message whose chat is gone: nothing to attach it to
    return {
      sourceKey: String(row.id),
      hitId: chatHitId(this.name, row.chatId, row.id),
      conversation: this.ref(meta),
      at: row.createdAt * 1000,
      role: row.role,
      kind: "chat",
      content: {
        type: "chat",
        role: row.role,
        content: row.content ?? "",
        isCompactionSummary: Boolean(row.isCompactionSummary),
      },
      cursor: null,
      message: String(row.id),
      job: null,
      run: null,
      appId: meta.appId,
      chatId: row.chatId,
    };
  }

  private chatFingerprint(meta: ChatMeta): string {
    return createHash("sha256")
      .update(`${meta.appId}\u0000${meta.title ?? ""}\u0000${meta.appPath ?? ""}`)
      .digest("hex")
      .slice(0, 16);
  }

  private chatCheckpoint(meta: ChatMeta): SourceCheckpoint {
    return {
      source: this.name,
      key: chatKey(meta.id),
      offset: 0,
      size: null,
      mtime: null,
      headHash: this.chatFingerprint(meta),
      state: null,
    };
  }

  /** A bounded step of the chat pass: renamed chats (or moved apps) get their metadata rewritten. */
  private syncChats(view: IndexView, batch: SourceBatch): void {
    const rows = this.stmt(
      `SELECT c.id, c.app_id AS appId, c.title, c.created_at AS createdAt, a.path AS appPath
       FROM chats c LEFT JOIN apps a ON a.id = c.app_id
       WHERE c.id > ? ORDER BY c.id LIMIT ?`,
    ).all(this.chatPos, MAX_CHATS_PER_TICK) as ChatMeta[];
    for (const meta of rows) {
      this.chatPos = meta.id;
      const fingerprint = this.chatFingerprint(meta);
      const stored = view.checkpoint(this.name, chatKey(meta.id));
      if (stored?.headHash === fingerprint) continue;
      // Known chats (records written before) get their new metadata; a chat seen for the first
      // time only gets its fingerprint: its messages carry the metadata when written.
      if (stored) {
        batch.conversations.push(this.ref(meta));
        this.passChanged = true;
      }
      batch.checkpoints.push(this.chatCheckpoint(meta));
    }
    if (rows.length < MAX_CHATS_PER_TICK) this.chatsDone = true;
  }
}
