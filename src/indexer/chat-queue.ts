import { EMBEDDED_CHAT_SOURCE } from "../core/kinds.js";
import {
  DEFAULT_REDACTION,
  projectChatMessage,
  PROJECTION_VERSION,
  separateCjk,
  type Redaction,
} from "../projection/index.js";
import type { Db } from "../store/open.js";
import { documentOwnHitId } from "../store/hit-ids.js";
import { deleteMeta, getMeta, setMeta } from "../store/meta.js";
import { noteDocumentsRewritten } from "../store/rewrites.js";
import { statement } from "../store/statements.js";
import { topRowid } from "../store/top-rowid.js";
import { messagesByIds, sizesOf, type DyadMessageRow } from "../store/dyad-tables.js";

/** Bounds on one drain batch: rows and bytes of message content. */
export interface ChatBatchLimits {
  maxRows: number;
  maxBytes: number;
}

/** recall_meta's note that a projection rebuild of the chat documents has not drained yet. */
const REBUILD_PENDING = "chat_rebuild_pending";
/** recall_meta's redaction fingerprint of the chat documents (indexer/derived-versions.ts). */
const REDACTION_FINGERPRINT = "redaction_fingerprint";

export const DEFAULT_CHAT_BATCH: ChatBatchLimits = { maxRows: 100, maxBytes: 1024 * 1024 };

export interface ChatBatchResult {
  indexed: number;
  removed: number;
  /** Bytes of message content projected in this batch. */
  bytes: number;
  /** Dirty rows still queued after this batch. */
  more: boolean;
}

/*
 * A statement that fires a trigger opens a statement savepoint, at which FTS5 flushes its pending
 * terms: indexing row by row through the documents' insert trigger wrote one segment per message
 * and left FTS5 merging them inside the batch. New documents are therefore inserted with
 * fts_deferred = 1 and their FTS rows written by direct statements once per batch (as
 * indexer/ingest.ts does); an unchanged text only updates metadata, which fires no FTS trigger;
 * only a changed text goes through the update trigger.
 */
const INSERT_DOCUMENT = `
  INSERT INTO recall_documents (id, source, source_key, own_hit_id, kind, agent, at, message, conversation,
    app_id, chat_id, role, title, body, is_compaction_summary, projection_truncated, projection_version,
    fts_deferred)
  VALUES (@id, '${EMBEDDED_CHAT_SOURCE}', @key, @ownHitId, 'chat', 'dyad', @at, @key, @conversation,
    @appId, @chatId, @role, @title, @body, @compaction, @truncated, @version, 1)`;
const UPDATE_METADATA = `
  UPDATE recall_documents SET at = @at, conversation = @conversation, app_id = @appId, chat_id = @chatId,
    role = @role, is_compaction_summary = @compaction, projection_truncated = @truncated,
    projection_version = @version, own_hit_id = @ownHitId
  WHERE id = @id`;
const UPDATE_TEXT = `UPDATE recall_documents SET title = @title, body = @body WHERE id = @id`;
const INSERT_FTS = `INSERT INTO recall_fts (rowid, title, body) VALUES (?, ?, ?)`;
const EXISTING = `SELECT d.id, d.title, d.body FROM json_each(?) j CROSS JOIN recall_documents d ON d.id = j.value`;

interface FtsText {
  id: number;
  title: string;
  body: string;
}

type Written = "indexed" | "rewritten" | "removed";

/**
 * Writes one message's document; a new one's FTS text is queued on `deferred`. "rewritten": an
 * indexed text changed in place (a chat's title, an edited message).
 */
function writeMessage(
  db: Db,
  row: DyadMessageRow,
  existing: FtsText | undefined,
  deferred: FtsText[],
  redaction: Redaction,
): Written {
  const projection = projectChatMessage(
    { role: row.role, content: row.content, isCompactionSummary: Boolean(row.isCompactionSummary) },
    "search",
    redaction,
  );
  if (projection.text.length === 0) {
    // Nothing searchable (e.g. a message that was only payload tags): keep it out of the index.
    if (existing) statement(db, "DELETE FROM recall_documents WHERE id = ?").run(row.id);
    return "removed";
  }
  const key = String(row.id);
  const conversation = `chat:${row.chatId}`;
  const values = {
    id: row.id,
    key,
    // Derived from the conversation and key, so none is stored (store/hit-ids.ts).
    ownHitId: documentOwnHitId("chat", conversation, key, `chat:${row.chatId}:${row.id}`),
    at: row.createdAt * 1000,
    conversation,
    appId: row.appId,
    chatId: row.chatId,
    role: row.role,
    // A chat's title is searched and shown as its messages are: secrets redacted.
    title: separateCjk(redaction.redact(row.title ?? "")),
    body: projection.text,
    compaction: row.isCompactionSummary ? 1 : 0,
    truncated: projection.truncated ? 1 : 0,
    version: PROJECTION_VERSION,
  };
  if (!existing) {
    statement(db, INSERT_DOCUMENT).run(values);
    deferred.push({ id: values.id, title: values.title, body: values.body });
    return "indexed";
  }
  statement(db, UPDATE_METADATA).run(values);
  if (existing.title === values.title && existing.body === values.body) return "indexed";
  statement(db, UPDATE_TEXT).run({ id: values.id, title: values.title, body: values.body });
  return "rewritten";
}

/**
 * One bounded drain step over the dirty queues, in one transaction: dirty chats expand into
 * their messages; then up to maxRows dirty messages (and at most maxBytes of content, but
 * always at least one) are re-read joined to their chat, projected and written. IMMEDIATE: the
 * host writes from other connections too, and a transaction that read first and wrote later
 * would fail at once (SQLITE_BUSY_SNAPSHOT) instead of waiting out the busy timeout.
 */
export function drainChatBatch(
  db: Db,
  limits: ChatBatchLimits = DEFAULT_CHAT_BATCH,
  redaction: Redaction = DEFAULT_REDACTION,
): ChatBatchResult {
  return db
    .transaction((): ChatBatchResult => {
      const chats = statement(db, "SELECT chat_id AS id FROM recall_dirty_chats LIMIT 16").all() as {
        id: number;
      }[];
      for (const chat of chats) {
        statement(
          db,
          "INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages WHERE chat_id = ?",
        ).run(chat.id);
        statement(db, "DELETE FROM recall_dirty_chats WHERE chat_id = ?").run(chat.id);
      }
      const queued = (
        statement(db, "SELECT message_id AS id FROM recall_dirty_messages ORDER BY message_id LIMIT ?").all(
          limits.maxRows,
        ) as { id: number }[]
      ).map((r) => r.id);

      const sizes = new Map(sizesOf(db, queued).map((s) => [s.id, s.bytes]));
      const take: number[] = [];
      let bytes = 0;
      for (const id of queued) {
        const size = sizes.get(id) ?? 0;
        if (take.length > 0 && bytes + size > limits.maxBytes) break;
        take.push(id);
        bytes += size;
      }
      const rows = messagesByIds(db, take);
      const present = new Set(rows.map((r) => r.id));
      const existing = new Map(
        (statement(db, EXISTING).all(JSON.stringify(take)) as FtsText[]).map((d) => [d.id, d]),
      );
      let indexed = 0;
      let removed = 0;
      const deferred: FtsText[] = [];
      let rewritten = false;
      const top = topRowid(db);
      for (const row of rows) {
        const written = writeMessage(db, row, existing.get(row.id), deferred, redaction);
        if (written === "removed") removed++;
        else indexed++;
        rewritten ||= written === "rewritten";
      }
      // A document's rowid is its message id: term statistics built before (search/term-cache.ts)
      // would miss the words a changed text brought, and a message indexed only now (it had no
      // searchable text yet) below rows already indexed. They start over (store/rewrites.ts). Not
      // batch by batch during a rebuild, whose end does it. Otherwise rare: a title set after a
      // chat's first messages, an edited message, a reply indexed mid-stream (the repair poll)
      // and again once it settled, a reply that ends after another chat's message was indexed.
      rewritten ||= deferred.some((d) => d.id < top);
      if (rewritten && getMeta(db, REBUILD_PENDING) === undefined) noteDocumentsRewritten(db);
      // New documents' FTS rows, after every other write of the batch: one flush, one segment.
      const fts = statement(db, INSERT_FTS);
      for (const d of deferred) fts.run(d.id, d.title, d.body);
      const clear = statement(db, "DELETE FROM recall_dirty_messages WHERE message_id = ?");
      const drop = statement(db, "DELETE FROM recall_documents WHERE id = ?");
      for (const id of take) {
        if (!present.has(id)) {
          drop.run(id);
          removed++;
        }
        clear.run(id);
      }
      const more =
        statement(db, "SELECT 1 FROM recall_dirty_messages LIMIT 1").get() !== undefined ||
        statement(db, "SELECT 1 FROM recall_dirty_chats LIMIT 1").get() !== undefined;
      return { indexed, removed, bytes, more };
    })
    .immediate();
}

/**
 * A rebuild's documents are all rewritten: term statistics built meanwhile are dropped once more
 * (store/rewrites.ts), and the rebuild is over — true — unless work came in meanwhile.
 */
export function finishChatRebuild(db: Db): boolean {
  return db.transaction(() => {
    noteDocumentsRewritten(db);
    // Only a drained queue ends it (the host wrote meanwhile, or another host process began a
    // rebuild); the next drain tries again.
    if (backlogSize(db) > 0) return false;
    deleteMeta(db, REBUILD_PENDING);
    return true;
  })();
}

/**
 * Start-up repair: a projection-version change, or other redaction settings than the documents
 * were written with, marks every message dirty (rebuilt in the background), and documents
 * whose message is gone are removed. (No fingerprint stored: written with the built-in
 * detectors, as derived-versions.ts reads it.)
 */
export function prepareChatIndex(
  db: Db,
  redaction: Redaction = DEFAULT_REDACTION,
): { rebuild: boolean; orphansRemoved: number } {
  return db
    .transaction(() => {
      const changed =
        getMeta(db, "projection_version") !== String(PROJECTION_VERSION) ||
        (getMeta(db, REDACTION_FINGERPRINT) ?? DEFAULT_REDACTION.fingerprint) !== redaction.fingerprint;
      if (changed) {
        statement(
          db,
          "INSERT OR IGNORE INTO recall_dirty_messages (message_id) SELECT id FROM messages",
        ).run();
        setMeta(db, "projection_version", String(PROJECTION_VERSION));
        setMeta(db, REDACTION_FINGERPRINT, redaction.fingerprint);
        noteDocumentsRewritten(db); // every document is about to be rewritten in place
        setMeta(db, REBUILD_PENDING, "1");
      }
      // A rebuild a stop or a restart interrupted is still one (finishChatRebuild ends it).
      const rebuild = changed || getMeta(db, REBUILD_PENDING) !== undefined;
      const orphans = statement(
        db,
        `DELETE FROM recall_documents WHERE source = '${EMBEDDED_CHAT_SOURCE}' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = recall_documents.id)`,
      ).run();
      return { rebuild, orphansRemoved: orphans.changes };
    })
    .immediate();
}

/** Whether any queued work concerns this app (excluding the caller's own chat). */
export function hasPendingWork(db: Db, appId: number, excludeChatId: number | null): boolean {
  const message = statement(
    db,
    // CROSS JOIN keeps the (usually empty) queue as the driving table; a plain JOIN let SQLite
    // scan every message of the app (53 ms at 1M messages) on every search.
    `SELECT 1 FROM recall_dirty_messages q CROSS JOIN messages m ON m.id = q.message_id CROSS JOIN chats c ON c.id = m.chat_id
     WHERE c.app_id = ? AND m.chat_id IS NOT ? LIMIT 1`,
  ).get(appId, excludeChatId);
  if (message) return true;
  const chat = statement(
    db,
    `SELECT 1 FROM recall_dirty_chats q CROSS JOIN chats c ON c.id = q.chat_id WHERE c.app_id = ? AND c.id IS NOT ? LIMIT 1`,
  ).get(appId, excludeChatId);
  return chat !== undefined;
}

/** Rows still queued (for figures; a count, never content). */
export function backlogSize(db: Db): number {
  const row = statement(
    db,
    "SELECT (SELECT count(*) FROM recall_dirty_messages) + (SELECT count(*) FROM recall_dirty_chats) AS n",
  ).get() as { n: number };
  return row.n;
}
