/**
 * Kilo Code CLI history: every `kilo*.db` in `$XDG_DATA_HOME/kilo` (~/.local/share/kilo), read
 * through the session database base, opened read-only (the live WAL, where Kilo keeps most rows,
 * is read and never checkpointed). A session changes when its row, a message or a part does; a
 * message is re-read whole with its parts when any of them changes, so a resumed session
 * (`--continue` adds messages to the same session) repeats nothing. Full tool outputs Kilo saves
 * under `tool-output/` are not read: the stored output and its preview say where they are.
 *
 * Conversation `kilo:<sessionId>` (parent from `parent_id`); records keyed by message id (hit id
 * `transcript:kilo:<sessionId>:<messageId>`).
 */
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import { SessionDatabaseSource, type RowCursor } from "../databases/session-database-source.js";
import { conversationId } from "../ids.js";
import { mapOpencodeV1Message } from "../opencode/record.js";
import { opencodeSourceRecord } from "../opencode/turn-record.js";
import type { Db } from "../../store/open.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import { mapKiloSession, type KiloMessageRow, type KiloSessionRow } from "./record.js";
import { KILO_AGENT, KILO_SOURCE } from "./definition.js";
import { kiloDatabases } from "./paths.js";

// A session changes when it, one of its messages or one of their parts does.
const SESSIONS = `SELECT s.*, max(s.time_updated,
    coalesce((SELECT max(m.time_updated) FROM message m WHERE m.session_id = s.id), 0),
    coalesce((SELECT max(p.time_updated) FROM part p WHERE p.session_id = s.id), 0)) AS updatedAt
  FROM session s WHERE (updatedAt, s.id) > (?, ?) ORDER BY updatedAt, s.id LIMIT ?`;
const MESSAGES = `SELECT m.id, m.session_id, m.time_created, m.time_updated, m.data, max(m.time_updated,
    coalesce((SELECT max(p.time_updated) FROM part p WHERE p.message_id = m.id), 0)) AS updatedAt
  FROM message m WHERE m.session_id = ? AND (updatedAt, m.id) > (?, ?) ORDER BY updatedAt, m.id LIMIT ?`;
const PARTS = `SELECT id, message_id, time_created, time_updated, data FROM part WHERE message_id = ? ORDER BY id`;
const TABLES = `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`;
const after = (c: RowCursor) => [c.t === -Infinity ? -1 : c.t, c.id];

export function createKiloSource(env: Env, options: { maxLineBytes?: number } = {}) {
  const resolver = new ProjectResolver();
  const conversation = (row: KiloSessionRow): ConversationRef => {
    const meta = mapKiloSession(row);
    return {
      id: conversationId(KILO_AGENT, row.id),
      source: KILO_SOURCE,
      agent: KILO_AGENT,
      kind: "transcript",
      project: resolver.resolve(meta?.directory),
      session: row.id,
      parent: meta?.parentId ? conversationId(KILO_AGENT, meta.parentId) : null,
      title: meta?.title ?? null,
      branch: null,
      model: meta?.model?.modelID ?? null,
    };
  };
  const records = (row: KiloMessageRow, ref: ConversationRef): SourceRecord[] => {
    const record = mapOpencodeV1Message(row, row.parts);
    if (record.type === "skip") return [];
    return [opencodeSourceRecord(KILO_AGENT, record, ref, record.model?.modelID ?? ref.model ?? null)];
  };
  return new SessionDatabaseSource<KiloSessionRow, KiloMessageRow>({
    name: KILO_SOURCE,
    agent: KILO_AGENT,
    files: () => kiloDatabases(env),
    recognise: (db: Db) => db.prepare(TABLES).pluck().get() === 3,
    changedSessions: (db, cursor, limit) =>
      db.prepare(SESSIONS).all(...after(cursor), limit) as KiloSessionRow[],
    changedMessages: (db, session, cursor, limit) => {
      const rows = db.prepare(MESSAGES).all(session, ...after(cursor), limit) as KiloMessageRow[];
      const parts = db.prepare(PARTS);
      for (const row of rows) row.parts = parts.all(row.id) as KiloMessageRow["parts"];
      return rows;
    },
    conversation,
    records,
    ...(options.maxLineBytes !== undefined ? { maxRowBytes: options.maxLineBytes } : {}),
  });
}
