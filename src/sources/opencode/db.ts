/**
 * Read-only queries over an opencode database (transcript-formats.md §3). Tables are detected
 * from sqlite_master and columns by name; nothing here writes, and the connection is opened
 * read-only so a live WAL is read (recent rows seen) but never checkpointed.
 */
import type { Statement } from "better-sqlite3";
import { openSourceDatabase, type Db } from "../../store/open.js";
import type { OpencodeRow } from "./record.js";

/** One page of messages: at most this many parts (or v2 rows) and bytes of JSON. */
export const PAGE_MAX_ROWS = 200;
export const PAGE_MAX_BYTES = 512 * 1024;

export interface Cursor {
  t: number;
  id: string;
}

export const START: Cursor = { t: -1, id: "" };

export interface OpencodeTables {
  v1: boolean;
  v2: boolean;
  /** session_message exists and has rows: read v2 for the sessions session_v2 holds. */
  v2Active: boolean;
  partHasSession: boolean;
}

/** A session row as read, with the table it came from. */
export interface SessionRow extends OpencodeRow {
  __table: "session" | "session_v2";
  __rowid: number;
}

export class OpencodeDb {
  readonly db: Db;
  tables: OpencodeTables;
  private schemaVersion: number;
  private readonly cache = new Map<string, Statement>();

  constructor(readonly file: string) {
    this.db = openSourceDatabase(file);
    this.schemaVersion = this.readSchemaVersion();
    this.tables = this.detect();
  }

  private readSchemaVersion(): number {
    return this.db.pragma("schema_version", { simple: true }) as number;
  }

  /**
   * Follows an upgrade made while the connection stays open: opencode 2.x adds its tables to a
   * 1.x database (a schema change), and fills session_message later (a data change).
   */
  refresh(): void {
    const version = this.readSchemaVersion();
    if (version !== this.schemaVersion) {
      this.schemaVersion = version;
      this.cache.clear();
      this.tables = this.detect();
    } else if (this.tables.v2 && !this.tables.v2Active) {
      this.tables = { ...this.tables, v2Active: this.hasV2Rows() };
    }
  }

  private hasV2Rows(): boolean {
    return this.stmt("SELECT 1 FROM session_message LIMIT 1").get() !== undefined;
  }

  close(): void {
    this.db.close();
  }

  private stmt(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private detect(): OpencodeTables {
    const names = new Set(
      (
        this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((r) => r.name),
    );
    const v1 = names.has("session") && names.has("message");
    const v2 = names.has("session_v2") && names.has("session_message");
    const v2Active = v2 && this.hasV2Rows();
    const partHasSession =
      names.has("part") &&
      (this.db.prepare("PRAGMA table_info(part)").all() as { name: string }[]).some(
        (c) => c.name === "session_id",
      );
    return { v1: v1 && names.has("part"), v2, v2Active, partHasSession };
  }

  /**
   * SQLite's count of commits by other connections (opencode) as this connection sees it:
   * while it holds, nothing read since has changed.
   */
  dataVersion(): number {
    return this.stmt("PRAGMA data_version").pluck().get() as number;
  }

  /** Which tables hold this session's messages: never both (an upgraded database keeps frozen v1 copies). */
  schemaOf(sessionId: string): "v1" | "v2" {
    if (!this.tables.v2Active) return "v1";
    return this.stmt("SELECT 1 FROM session_v2 WHERE id = ?").get(sessionId) !== undefined ? "v2" : "v1";
  }

  /** Session rows changed after a cursor, oldest change first. */
  changedSessions(table: "session" | "session_v2", after: Cursor, limit: number): SessionRow[] {
    const rows = this.stmt(
      `SELECT rowid AS __rowid, * FROM "${table}"
       WHERE time_updated > ? OR (time_updated = ? AND id > ?)
       ORDER BY time_updated, id LIMIT ?`,
    ).all(after.t, after.t, after.id, limit) as SessionRow[];
    for (const row of rows) row.__table = table;
    return rows;
  }

  /** Session rows by rowid (a first listing). */
  sessionsFrom(table: "session" | "session_v2", afterRowid: number, limit: number): SessionRow[] {
    const rows = this.stmt(
      `SELECT rowid AS __rowid, * FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    ).all(afterRowid, limit) as SessionRow[];
    for (const row of rows) row.__table = table;
    return rows;
  }

  /** The change cursor of the table's newest change (one scan), or null when it has no rows. */
  newestChange(table: "session" | "session_v2"): Cursor | null {
    const row = this.stmt(
      `SELECT time_updated AS t, id FROM "${table}" ORDER BY time_updated DESC, id DESC LIMIT 1`,
    ).get() as { t: number | null; id: string } | undefined;
    return row ? { t: Number(row.t ?? 0), id: String(row.id) } : null;
  }

  /** Session ids by rowid, for the slow re-check sweep. */
  sessionIdsFrom(
    table: "session" | "session_v2",
    afterRowid: number,
    limit: number,
  ): { rowid: number; id: string }[] {
    return this.stmt(`SELECT rowid, id FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`).all(
      afterRowid,
      limit,
    ) as { rowid: number; id: string }[];
  }

  sessionTables(): ("session" | "session_v2")[] {
    const out: ("session" | "session_v2")[] = [];
    if (this.tables.v2Active) out.push("session_v2");
    if (this.tables.v1) out.push("session");
    return out;
  }

  /** v2: session_message rows changed after a cursor (one page; `more` when it was cut). */
  v2Messages(sessionId: string, after: Cursor): { rows: OpencodeRow[]; more: boolean } {
    const rows = this.stmt(
      `SELECT id, session_id, type, seq, time_created, time_updated, data FROM session_message
       WHERE session_id = ? AND (time_updated > ? OR (time_updated = ? AND id > ?))
       ORDER BY time_updated, id LIMIT ?`,
    ).all(sessionId, after.t, after.t, after.id, PAGE_MAX_ROWS) as OpencodeRow[];
    const kept = capBytes(rows);
    return { rows: kept, more: rows.length >= PAGE_MAX_ROWS || kept.length < rows.length };
  }

  /** A session's row from the table that holds its conversation. */
  sessionById(sessionId: string): SessionRow | undefined {
    for (const table of this.sessionTables()) {
      const row = this.stmt(`SELECT rowid AS __rowid, * FROM "${table}" WHERE id = ?`).get(sessionId) as
        SessionRow | undefined;
      if (row) {
        row.__table = table;
        return row;
      }
    }
    return undefined;
  }

  /** v1: message rows changed after a cursor. */
  v1ChangedMessages(sessionId: string, after: Cursor): { id: string; time_updated: number }[] {
    return this.stmt(
      `SELECT id, time_updated FROM message
       WHERE session_id = ? AND (time_updated > ? OR (time_updated = ? AND id > ?))
       ORDER BY time_updated, id LIMIT ?`,
    ).all(sessionId, after.t, after.t, after.id, PAGE_MAX_ROWS) as { id: string; time_updated: number }[];
  }

  /** v1: part rows changed after a cursor (their messages are re-read whole). */
  v1ChangedParts(
    sessionId: string,
    after: Cursor,
  ): { id: string; message_id: string; time_updated: number }[] {
    const where = this.tables.partHasSession
      ? "session_id = ?"
      : "message_id IN (SELECT id FROM message WHERE session_id = ?)";
    return this.stmt(
      `SELECT id, message_id, time_updated FROM part
       WHERE ${where} AND (time_updated > ? OR (time_updated = ? AND id > ?))
       ORDER BY time_updated, id LIMIT ?`,
    ).all(sessionId, after.t, after.t, after.id, PAGE_MAX_ROWS) as {
      id: string;
      message_id: string;
      time_updated: number;
    }[];
  }

  v1Message(id: string): OpencodeRow | undefined {
    return this.stmt("SELECT id, session_id, time_created, time_updated, data FROM message WHERE id = ?").get(
      id,
    ) as OpencodeRow | undefined;
  }

  v1Parts(messageId: string): OpencodeRow[] {
    return this.stmt(
      "SELECT id, message_id, time_created, time_updated, data FROM part WHERE message_id = ? ORDER BY id",
    ).all(messageId) as OpencodeRow[];
  }
}

/** Keeps a page within PAGE_MAX_BYTES of JSON (at least one row). */
function capBytes(rows: OpencodeRow[]): OpencodeRow[] {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    const data = rows[i]!["data"];
    bytes += typeof data === "string" ? data.length : 0;
    if (bytes > PAGE_MAX_BYTES && i > 0) return rows.slice(0, i);
  }
  return rows;
}

export function rowBytes(row: OpencodeRow): number {
  const data = row["data"];
  return typeof data === "string" ? data.length : 0;
}
