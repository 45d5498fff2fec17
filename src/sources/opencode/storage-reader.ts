/**
 * opencode's storage/ JSON files (before 1.2), each a whole document opencode rewrites in place:
 * `storage/session/<projectId>/<sessionId>.json`, `storage/message/<sessionId>/<messageId>.json`
 * and `storage/part/<messageId>/<partId>.json`, plus the oldest `project/<dir>/storage/session/`
 * layout that opencode later copied there. Per tick: a bounded walk finds sessions, a round robin
 * of `maxEntries` stat calls finds changed ones, and at most `maxFiles` sessions are read.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Budget, IndexView, SourceBatch } from "../types.js";
import { BoundedWalker } from "../files/walker.js";
import { DISCOVERY_INTERVAL_MS } from "../files/jsonl-source.js";
import { ioRetryAt, isMissing } from "../shared/io-retry.js";
import { isRecord, parseJson, str } from "../shared/json.js";
import { mapOpencodeStorageMessage, mapOpencodeStorageSession, type OpencodeRecord } from "./record.js";
import { PAGE_MAX_ROWS } from "./db.js";
import { ScanCadence } from "./cadence.js";
import { parseState, type OpencodeSessions } from "./sessions.js";

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

export const storageKey = (id: string) => `storage:${id}`;

export class OpencodeStorage {
  private readonly walker: BoundedWalker;
  /** Storage sessions known: session id → its session JSON file and message folder. */
  private readonly storage = new Map<string, StorageFiles>();
  private readonly partsDir: string;
  private readonly legacyRoot: string;
  private readonly storageBacklog = new Set<string>();
  private storageOrder: string[] = [];
  private storagePosition = 0;
  private storageDirty = true;
  private storageSweepChanged = false;
  private storageSweptClean = false;
  /** The last change-detection sweep found no change, and none was found since. */
  private storageQuiet = false;
  private readonly storageCadence = new ScanCadence();
  /** storage/ sessions whose last read stopped at a file that could not be read, by session id. */
  private readonly storageRetries = new Map<string, StorageRetry>();

  constructor(
    private readonly dataDir: string,
    private readonly shared: OpencodeSessions,
  ) {
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
  }

  /** Sessions found. */
  get size(): number {
    return this.storage.size;
  }

  /** Sessions with messages waiting. */
  get backlog(): number {
    return this.storageBacklog.size;
  }

  /** A first discovery walk has completed. */
  get discovered(): boolean {
    return this.walker.sweeps > 0;
  }

  /** A session storage/ holds. */
  holds(sessionId: string): boolean {
    return this.storage.has(sessionId);
  }

  /** A change-detection sweep ended clean (or there is nothing to sweep) since the last clean sweep was counted. */
  get clean(): boolean {
    return this.storageOrder.length === 0 || this.storageSweptClean;
  }

  cleanCounted(): void {
    this.storageSweptClean = false;
  }

  /** Returns true when storage has nothing left to do right now. */
  sync(view: IndexView, batch: SourceBatch, budget: Budget): boolean {
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
    const state = parseState<StorageState>(view.checkpoint(this.shared.name, storageKey(id)));
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
    const state: StorageState = parseState<StorageState>(view.checkpoint(this.shared.name, key)) ?? {
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
    let conversation = this.shared.conversationOf(id);
    if (meta && sessionMtime !== state.sessionMtime) {
      conversation = this.shared.conversationFor(meta);
      this.shared.conversations.set(id, conversation);
      batch.conversations.push(conversation);
      if (meta.title) batch.aliases.push({ alias: meta.title, session: id, source: this.shared.name });
      if (meta.parentId) batch.aliases.push({ alias: meta.parentId, session: id, source: this.shared.name });
      if (sessionBytes)
        this.shared.retainFile(batch, sessionFile, conversation.id, sessionBytes, meta.createdAt);
    } else if (meta && !this.shared.conversations.has(id)) {
      conversation = this.shared.conversationFor(meta);
      this.shared.conversations.set(id, conversation);
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
        this.shared.retainFile(batch, file, conversation.id, bytes as Buffer, at);
        for (const part of partFiles)
          this.shared.retainFile(batch, part.file, conversation.id, part.bytes, at);
      }
      state.last = messageId;
      this.shared.doneRows += 1;
    }
    if (conversation.project === null && cwd) {
      conversation = { ...conversation, project: this.shared.resolver.resolve(cwd) };
      this.shared.conversations.set(id, conversation);
      batch.conversations.push(conversation);
    }
    for (const record of records) this.shared.emit(record, conversation, batch);
    if (failedAt !== null) failed(failedAt);
    else this.storageRetries.delete(id);
    if (!more && failedAt === null) state.dirMtime = dirMtime;
    state.sessionMtime = sessionMtime;
    batch.checkpoints.push(this.shared.rowCheckpoint(key, state));
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
