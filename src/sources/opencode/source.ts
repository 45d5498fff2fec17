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
import { agentRoots, type Env } from "../../platform/paths.js";
import type { Budget, IndexView, Source, SourceBatch } from "../types.js";
import { emptyBatch } from "../types.js";
import { OpencodeDatabases } from "./database-reader.js";
import { OpencodeReplay } from "./replay.js";
import { OPENCODE_AGENT, OPENCODE_SOURCE } from "./definition.js";
import { OpencodeSessions } from "./sessions.js";
import { OpencodeStorage } from "./storage-reader.js";

export { SWEEP_INTERVAL_MS } from "./database-reader.js";

export interface OpencodeSourceOptions {
  dataDir?: string;
  dbFile?: string | null;
}

/** The databases, the storage/ files and the replay of retained sessions, one tick each in turn. */
export class OpencodeSource implements Source {
  readonly name = OPENCODE_SOURCE;
  readonly agent = OPENCODE_AGENT;
  readonly retainsHistory = true;
  private readonly shared = new OpencodeSessions();
  private readonly databases: OpencodeDatabases;
  private readonly storage: OpencodeStorage;
  private readonly replay: OpencodeReplay;
  private cleanSweeps = 0;

  constructor(env: Env, options: OpencodeSourceOptions = {}) {
    const roots = agentRoots(env);
    const dataDir = options.dataDir ?? roots.opencodeDataDir;
    const explicitDb = options.dbFile !== undefined ? options.dbFile : roots.opencodeDb;
    this.databases = new OpencodeDatabases(dataDir, explicitDb, this.shared);
    this.storage = new OpencodeStorage(dataDir, this.shared);
    this.replay = new OpencodeReplay(this.shared, (id) => this.storage.holds(id) || this.databases.holds(id));
  }

  close(): void {
    this.storage.close();
    this.databases.close();
  }

  nextBatch(view: IndexView, budget: Budget): SourceBatch {
    const batch = emptyBatch();
    let idle = this.databases.sync(view, batch, budget);
    if (!this.storage.sync(view, batch, budget)) idle = false;
    if (idle && !this.replay.done && this.databases.readable() && !this.replay.step(view, batch, budget)) {
      idle = false;
    }
    batch.progress = {
      filesKnown: this.databases.size + this.storage.size,
      backlogFiles: this.databases.queued + this.storage.backlog,
      backlogBytes: 0,
      doneBytes: this.shared.doneRows,
      discovered: this.storage.discovered,
      cleanSweeps: this.cleanSweeps,
    };
    batch.idle = idle;
    // A clean sweep: every database scanned and found unchanged, and the storage/ files
    // swept, since the last one was counted.
    if (idle && this.databases.scannedClean() && this.storage.clean) {
      this.cleanSweeps += 1;
      this.storage.cleanCounted();
      this.databases.cleanCounted();
    }
    return batch;
  }
}

export function createOpencodeSource(env: Env, options: OpencodeSourceOptions = {}): OpencodeSource {
  return new OpencodeSource(env, options);
}
