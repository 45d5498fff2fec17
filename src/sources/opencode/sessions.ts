/**
 * What opencode's readers share (database rows, storage/ files, retained replay): the
 * conversations learned so far, and one way to turn a mapped message into a record, retain its
 * bytes and checkpoint a row cursor, so a message reads alike from any of them.
 */
import type { ConversationRef, RawChunk, SourceBatch, SourceCheckpoint } from "../types.js";
import { ProjectResolver } from "../../platform/project.js";
import { parseJson } from "../shared/json.js";
import { conversationId } from "../ids.js";
import {
  mapOpencodeSessionRow,
  type OpencodeRecord,
  type OpencodeRow,
  type OpencodeSessionMeta,
} from "./record.js";
import type { SessionRow } from "./db.js";
import { opencodeSourceRecord } from "./turn-record.js";
import { OPENCODE_AGENT, OPENCODE_SOURCE } from "./definition.js";

export const parseState = <T>(cp: SourceCheckpoint | undefined): T | null => {
  if (!cp?.state) return null;
  const parsed = parseJson(cp.state);
  return parsed.ok ? (parsed.value as T) : null;
};

export class OpencodeSessions {
  readonly name = OPENCODE_SOURCE;
  readonly resolver = new ProjectResolver();
  /** Messages (rows or files) read so far by this process, for the progress bar. */
  doneRows = 0;

  rowCheckpoint(key: string, state: unknown): SourceCheckpoint {
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

  conversationFor(meta: OpencodeSessionMeta): ConversationRef {
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

  readonly conversations = new Map<string, ConversationRef>();
  /** Sessions whose own row names their model (see emit). */
  private readonly rowModels = new Set<string>();

  /** Conversation metadata and aliases of one session row. */
  session(row: SessionRow, batch: SourceBatch): ConversationRef | null {
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

  conversationOf(sessionId: string): ConversationRef {
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

  emit(record: OpencodeRecord, conversation: ConversationRef, batch: SourceBatch): void {
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
    const out = opencodeSourceRecord(OPENCODE_AGENT, record, ref, record.model?.modelID ?? null);
    batch.records.push(out);
  }

  /**
   * Retains the rows exactly as read: one JSON line per message with its columns (the `data`
   * column kept as the very string stored) and, for v1, its parts.
   */
  retain(
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

  retainFile(batch: SourceBatch, file: string, conversation: string, bytes: Buffer, at: number | null): void {
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
