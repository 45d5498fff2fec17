/**
 * A rebuild replays the retained rows and files of sessions that neither a database nor storage/
 * holds any more (deleted by opencode or by hand), once the live data is caught up, through the
 * same mappers as a live read.
 */
import path from "node:path";
import type { Budget, IndexView, RetainedChunk, SourceBatch, ConversationRef } from "../types.js";
import { parseJson } from "../shared/json.js";
import {
  mapOpencodeStorageMessage,
  mapOpencodeV1Message,
  mapOpencodeV2Message,
  type OpencodeRow,
} from "./record.js";
import { OPENCODE_SOURCE } from "./definition.js";
import type { OpencodeSessions } from "./sessions.js";

/**
 * Replaying the retained rows and files of sessions whose database rows and storage/ files are
 * gone (a rebuild after opencode or the user deleted them). The retained sessions are read a
 * page at a time once the live data is caught up (all of a first backfill's 17k sessions at once
 * held 6 MB of the indexing thread's heap); a session replayed to its end gets a checkpoint,
 * which a reindex reset clears.
 */
interface Replay {
  page: ConversationRef[];
  position: number;
  /** The id the next page starts after: the source's id prefix, then the page's last id. */
  after: string;
  current: { ref: ConversationRef; session: string; afterId: number } | null;
  done: boolean;
}

/** Retained chunks read per replay step. */
const REPLAY_PAGE = 200;
/** Retained sessions read per page. */
const SESSION_PAGE = 256;

/** A retained storage/ message file: `…/storage/message/<sessionId>/<messageId>.json`. */
const STORAGE_MESSAGE = /[\\/]storage[\\/]message[\\/][^\\/]+[\\/]([^\\/]+)\.json$/;
/** The same in the oldest layout: `…/storage/session/message/<sessionId>/<messageId>.json`. */
const LEGACY_MESSAGE = /[\\/]storage[\\/]session[\\/]message[\\/]([^\\/]+)[\\/]([^\\/]+)\.json$/;

const replayKey = (id: string) => `replayed:${id}`;

export class OpencodeReplay {
  private readonly state: Replay = {
    page: [],
    position: 0,
    after: `${OPENCODE_SOURCE}:`,
    current: null,
    done: false,
  };

  constructor(
    private readonly shared: OpencodeSessions,
    /** A session some database or the storage/ files still hold: read live, never replayed. */
    private readonly isLive: (sessionId: string) => boolean,
  ) {}

  /** Every retained session has been looked at. */
  get done(): boolean {
    return this.state.done;
  }

  /**
   * One bounded step of replaying retained sessions that no database or storage/ file holds
   * any more, through the same mappers as a live read; true when every session is done.
   */
  step(view: IndexView, batch: SourceBatch, budget: Budget): boolean {
    const r = this.state;
    let checked = 0;
    while (batch.records.length < budget.maxRecords && !budget.expired()) {
      if (!r.current) {
        if (checked >= budget.maxSessionRows) return false;
        if (r.position >= r.page.length) {
          r.page = view.retainedConversations(this.shared.name, r.after, SESSION_PAGE);
          r.position = 0;
          if (r.page.length === 0) {
            r.done = true;
            return true;
          }
          r.after = r.page[r.page.length - 1]!.id;
        }
        const ref = r.page[r.position++]!;
        checked += 1;
        const session = ref.id.slice(`${OPENCODE_SOURCE}:`.length);
        if (this.isLive(session) || view.checkpoint(this.shared.name, replayKey(session))) continue;
        this.shared.conversations.set(session, ref);
        r.current = { ref, session, afterId: 0 };
      }
      const current = r.current;
      const page = view.retainedChunks(this.shared.name, current.ref.id, current.afterId, REPLAY_PAGE);
      for (const chunk of page) {
        current.afterId = chunk.id;
        this.replayChunk(view, chunk, current.ref, batch);
      }
      if (page.length < REPLAY_PAGE) {
        batch.checkpoints.push(this.shared.rowCheckpoint(replayKey(current.session), { v: 1 }));
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
        this.shared.emit(mapOpencodeV2Message(line.row), ref, batch);
      } else if (line.table === "message") {
        this.shared.emit(mapOpencodeV1Message(line.row, line.parts ?? []), ref, batch);
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
    for (const part of view.retainedUnder(this.shared.name, partDir)) {
      const parsed = parseJson(part.bytes.toString("utf8"));
      if (parsed.ok) parts.push(parsed.value);
      else batch.counters.malformed += 1;
    }
    this.shared.emit(mapOpencodeStorageMessage(message.value, parts), ref, batch);
  }
}
