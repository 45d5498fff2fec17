import { DEFAULT_REDACTION, separateCjk, type Redaction } from "../projection/index.js";
import type { Db } from "../store/open.js";
import { documentKeysDeferred, findDocument, noteDocument } from "../store/document-keys.js";
import { recordOwnHitId } from "../store/hit-ids.js";
import { getMeta } from "../store/meta.js";
import { CONVERSATION_REF, conversationRefOf } from "../store/record-rows.js";
import { DOCUMENT_KEY_INDEX, restoreReadIndex } from "../store/read-indexes.js";
import { pluckedStatement, statement } from "../store/statements.js";
import type { ConversationRef, SourceBatch, TitleClaim } from "../sources/types.js";
import {
  endBatchFts,
  flushFts,
  flushFtsRow,
  moveFts,
  queueFts,
  replaceFts,
  type FtsRow,
} from "./fts-queue.js";
import { documentBody, RECORD_TEXT_COLUMN, storedBody, type StoredBody } from "../store/document-text.js";
import { loadTombstones, type Tombstones } from "./tombstones.js";
import { pruneRaw } from "./retention.js";
import { prepareBatch, type PreparedBatch, type PreparedChunk, type PreparedRecord } from "./prepare.js";

export interface IngestOptions {
  /** The source the batch came from (stats, retention). */
  source: string;
  projectionVersion: number;
  now: number;
  /** config retention.rawMaxBytesPerSource: compressed raw bytes kept per source (null: unbounded). */
  rawMaxBytesPerSource?: number | null;
  /**
   * A rebuild, whose end drops every term statistic anyway (store/rewrites.ts): a changed text
   * keeps its rowid (see renewText). Moving every row made a 100k-message rebuild that changed
   * every text take 18–24 s instead of 15.2–15.5 s: a new rowid rewrites each of the row's index
   * entries.
   */
  textInPlace?: boolean;
  /**
   * What secrets become in every text written — projections, conversation titles, aliases
   * (projection/redact/); the built-in detectors unless config.json says otherwise.
   */
  redaction?: Redaction;
}

export interface IngestResult {
  records: number;
  documents: number;
  /** Records and chunks a tombstone kept out. */
  forgotten: number;
  rawChunks: number;
  rawBytes: number;
  rawStored: number;
  pruned: { chunks: number; bytes: number };
}

const READ_ORDINAL = `SELECT next_ordinal AS n FROM recall_conversations WHERE id = ?`;
/** Records name their conversation's row (store/record-rows.ts): it is there before the first one. */
const ENSURE_CONVERSATION = `INSERT INTO recall_conversations (id, source, agent, kind) VALUES (?, ?, ?, ?)
  ON CONFLICT (id) DO NOTHING`;
const UPSERT_CONVERSATION = `
  INSERT INTO recall_conversations (id, source, agent, kind, project, session, parent, title, started_at, updated_at,
    next_ordinal, model, branch)
  VALUES (@id, @source, @agent, @kind, @project, @session, @parent, @title, @startedAt, @updatedAt,
    @nextOrdinal, @model, @branch)
  ON CONFLICT (id) DO UPDATE SET
    project = coalesce(excluded.project, project),
    session = coalesce(excluded.session, session),
    parent = coalesce(excluded.parent, parent),
    title = coalesce(excluded.title, title),
    model = coalesce(excluded.model, model),
    branch = coalesce(excluded.branch, branch),
    started_at = coalesce(min(started_at, excluded.started_at), started_at, excluded.started_at),
    updated_at = coalesce(max(updated_at, excluded.updated_at), updated_at, excluded.updated_at),
    next_ordinal = max(next_ordinal, excluded.next_ordinal)`;

// Records and documents are written with a lookup then a plain INSERT or UPDATE: an
// INSERT … ON CONFLICT DO UPDATE costs twice a plain insert in SQLite (it needs a statement
// journal), and first backfills insert almost only new rows.
// Positional parameters: named binding costs about 1.4 µs more per statement of 12 values.
const FIND_RECORD = `SELECT id FROM recall_record_rows WHERE conversation_ref = ${CONVERSATION_REF} AND record_key = ?`;
/**
 * Only for records of a rewritten file's later version (SourceRecord.epoch): the records of a key
 * in every version, its own and those marked `<key>~<epoch>` ('~' sorts below char(127)).
 */
const RECORD_VERSIONS = `SELECT record_key AS key, epoch, text FROM recall_record_rows
  WHERE conversation_ref = ${conversationRefOf("conversation")}
  AND (record_key = @key OR (record_key > @key || '~' AND record_key < @key || '~' || char(127)))`;
const MARK_EPOCH = `UPDATE recall_record_rows SET epoch = ? WHERE id = ? AND epoch IS NOT ?`;
const INSERT_RECORD = `
  INSERT INTO recall_record_rows (at, role, kind, own_hit_id, text, truncated, cursor, model, branch,
    conversation_ref, ordinal, record_key)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ${CONVERSATION_REF}, ?, ?)`;
/**
 * A new record with a new document, as most of a first backfill's are: one insert. Its record
 * inserted, then its document set on the row, rewrote each row (its text's overflow pages too).
 */
const INSERT_RECORD_DOCUMENT = `
  INSERT INTO recall_record_rows (at, role, kind, own_hit_id, text, truncated, cursor, model, branch,
    conversation_ref, ordinal, record_key, project, job, run, message, app_id, chat_id, title, body,
    is_compaction_summary, projection_truncated, projection_version, fts_deferred)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ${CONVERSATION_REF}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
// Updates only what changed: a rebuild re-reads mostly unchanged rows, and SQLite rewrites (and
// logs) every row an UPDATE matches, changed or not.
const UPDATE_RECORD = `
  UPDATE recall_record_rows SET at = ?, role = ?, kind = ?, own_hit_id = ?, text = ?, truncated = ?, cursor = ?, model = ?,
    branch = ?
  WHERE id = ? AND (at IS NOT ? OR role IS NOT ? OR kind IS NOT ? OR own_hit_id IS NOT ? OR text IS NOT ? OR
    truncated IS NOT ? OR cursor IS NOT ? OR model IS NOT ? OR branch IS NOT ?)`;

/**
 * One document per (source, source key), found through store/document-keys.ts, held by its
 * record's row (schema 16: the row's id is the document's FTS rowid; its time, role, kind,
 * cursor and hit id are the record's, its source, agent and session the conversation's). When
 * another conversation already holds the key (a Claude line copied into a resumed or forked
 * session), the first keeps the document.
 */
const SET_DOCUMENT = `
  UPDATE recall_record_rows SET project = ?, job = ?, run = ?, message = ?, app_id = ?, chat_id = ?, title = ?,
    body = ?, is_compaction_summary = ?, projection_truncated = ?, projection_version = ?, fts_deferred = ?
  WHERE id = ?`;
const UPDATE_DOCUMENT = `
  UPDATE recall_record_rows SET project = ?, job = ?, run = ?, message = ?, is_compaction_summary = ?,
    projection_truncated = ?, projection_version = ?
  WHERE id = ? AND (project IS NOT ? OR job IS NOT ? OR run IS NOT ? OR message IS NOT ? OR
    is_compaction_summary IS NOT ? OR projection_truncated IS NOT ? OR projection_version IS NOT ?)`;
/**
 * The searched text, apart and only when it changed (a rebuild re-reads mostly unchanged text),
 * with its FTS row. A changed text moves its document to a new rowid, above every row term
 * statistics have seen (see renewText). The old text is read before the record's is rewritten:
 * a body '' stands for the record's read text (store/document-text.ts).
 */
const DOCUMENT_TEXT = `SELECT d.title, d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d
  WHERE d.id = ?`;
const UPDATE_DOCUMENT_TEXT = `UPDATE recall_record_rows SET title = @title, body = @body WHERE id = @id`;
/**
 * Rowids are never reused (AUTOINCREMENT); an UPDATE does not advance the sequence itself. The
 * record moves with its document: nothing keeps a record's id across batches.
 */
const RENEW_DOCUMENT = `
  UPDATE recall_record_rows SET title = @title, body = @body,
    id = coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'recall_record_rows'), (SELECT max(id) FROM recall_record_rows)) + 1
  WHERE id = @id RETURNING id`;
const ADVANCE_SEQUENCE = `UPDATE sqlite_sequence SET seq = ? WHERE name = 'recall_record_rows'`;
const PARTICIPANTS_OF = `SELECT identity FROM recall_document_participants WHERE document = ?`;
const RETITLED_DOCUMENTS = `
  SELECT d.id, d.source, d.source_key AS key, d.body, ${RECORD_TEXT_COLUMN} FROM recall_documents d
  WHERE d.conversation = ? AND d.title IS NOT ?`;
const DELETE_DOCUMENT = `DELETE FROM recall_documents WHERE id = ?`;

const DELETE_RECORD = `DELETE FROM recall_record_rows WHERE conversation_ref = ${CONVERSATION_REF} AND record_key = ?`;
const DELETE_RECORD_ID = `DELETE FROM recall_record_rows WHERE id = ?`;
const HAS_RECORDS = `SELECT 1 FROM recall_record_rows WHERE conversation_ref = ${CONVERSATION_REF} LIMIT 1`;
const DELETE_CONVERSATION = `DELETE FROM recall_conversations WHERE id = ? AND source = ?`;
const CONVERSATION_META = `SELECT title, project FROM recall_conversations WHERE id = ?`;
const REPROJECT_DOCUMENTS = `UPDATE recall_record_rows SET project = ?
  WHERE conversation_ref = ${CONVERSATION_REF} AND projection_version IS NOT NULL AND project IS NOT ?`;
const RESET_RECORDS = `DELETE FROM recall_record_rows WHERE conversation_ref = ${CONVERSATION_REF}`;
/**
 * A replaced file's conversation starts over from its new content: what the old content taught
 * (title, model, branch, its times and ordinals) goes; identity and links stay, and aliases (a
 * session's old titles still find it).
 */
const RESET_CONVERSATION = `UPDATE recall_conversations SET title = NULL, model = NULL, branch = NULL,
  started_at = NULL, updated_at = NULL, next_ordinal = 0 WHERE id = ?`;

const INSERT_RAW = `
  INSERT INTO recall_raw_chunks (source, file, conversation, offset, length, captured_at, data, epoch, first_at,
    last_at, stored, unit, codec)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const SAME_RAW = `SELECT 1 FROM recall_raw_chunks WHERE source = ? AND file = ? AND epoch = ? AND offset = ?
  AND length = ? AND conversation IS ? LIMIT 1`;

const UPSERT_CHECKPOINT = `
  INSERT INTO recall_checkpoints (source, key, offset, size, mtime, head_hash, state, updated_at)
  VALUES (@source, @key, @offset, @size, @mtime, @headHash, @state, @updatedAt)
  ON CONFLICT (source, key) DO UPDATE SET offset = excluded.offset, size = excluded.size, mtime = excluded.mtime,
    head_hash = excluded.head_hash, state = excluded.state, updated_at = excluded.updated_at`;

const CLEAR_PARTICIPANTS = `DELETE FROM recall_document_participants WHERE document = ?`;
const INSERT_PARTICIPANT = `INSERT OR IGNORE INTO recall_document_participants (identity, document) VALUES (?, ?)`;

const INSERT_ALIAS = `INSERT OR IGNORE INTO recall_session_aliases (alias, session, source) VALUES (?, ?, ?)`;
const CLAIM_TITLE = `UPDATE recall_conversations SET title = ? WHERE id = ? AND title IS NULL RETURNING session`;

const UPDATE_STATS = `
  INSERT INTO recall_source_stats (source, oversized, malformed, skipped, raw_chunks, raw_bytes, raw_stored,
    files_known, backlog_files, backlog_bytes, discovered, updated_at, rewritten, unreadable)
  VALUES (@source, @oversized, @malformed, @skipped, @rawChunks, @rawBytes, @rawStored,
    @filesKnown, @backlogFiles, @backlogBytes, @discovered, @now, @rewritten, @unreadable)
  ON CONFLICT (source) DO UPDATE SET
    oversized = oversized + excluded.oversized,
    malformed = malformed + excluded.malformed,
    rewritten = rewritten + excluded.rewritten,
    unreadable = unreadable + excluded.unreadable,
    skipped = skipped + excluded.skipped,
    raw_chunks = raw_chunks + excluded.raw_chunks,
    raw_bytes = raw_bytes + excluded.raw_bytes,
    raw_stored = raw_stored + excluded.raw_stored,
    files_known = coalesce(excluded.files_known, files_known),
    backlog_files = coalesce(excluded.backlog_files, backlog_files),
    backlog_bytes = coalesce(excluded.backlog_bytes, backlog_bytes),
    discovered = max(discovered, excluded.discovered),
    updated_at = excluded.updated_at`;

const engines = new WeakMap<Db, "fts5" | "plain">();
/** The writer connection's page cache (prepareWriter). */
export const WRITER_CACHE_KIB = 8192;

/** The index's engine, and the writer connection's settings (statement journals in memory). */
function prepareWriter(db: Db): "fts5" | "plain" {
  let engine = engines.get(db);
  if (!engine) {
    engine = getMeta(db, "engine") === "plain" ? "plain" : "fts5";
    // history-store.ts sets it on opening (a migration's temporary files would forbid setting it
    // here, inside a transaction); a host's connection gets it here.
    if (db.pragma("temp_store", { simple: true }) !== 2) db.pragma("temp_store = MEMORY");
    // The cache bounds a first load's peak RSS against the 300 MB (286.1 MiB) target. 32 MiB put
    // a 1M load at 275–290 MiB when 16 MiB gave 256 and 266 (schema 6). Since, the load's two
    // threads hold more: at 16 MiB the 1M demo corpus read 288–297 MiB (once 319), at 8 MiB
    // 283–285, the wall time within the noise (52.6 and 53.8 s against 51.1 and 54.6, alternating).
    db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
    engines.set(db, engine);
  }
  return engine;
}

interface ConversationWrite {
  ref: ConversationRef;
  startedAt: number | null;
  updatedAt: number | null;
  next: number | null;
  /** Keys inserted this batch into a conversation that had no records (no lookups needed). */
  fresh: Set<string> | null;
  /** Written this batch: a record passed the tombstones, or no tombstone names it. */
  keep: boolean;
}

/**
 * Writes one source batch — resets, conversations, retained records, documents, aliases, raw
 * chunks, checkpoints and counters — in a single transaction, so a checkpoint never runs
 * ahead of what it produced. Tombstones left by `recall forget` keep forgotten history out.
 */
export function ingestBatch(db: Db, batch: SourceBatch, options: IngestOptions): IngestResult {
  // Projection and compression, the costliest pure steps, run before the write transaction.
  return writeBatch(db, prepareBatch(batch, options.redaction), options);
}

/** The SQL half of ingestBatch: writes a batch prepared by prepareBatch (here or on another thread). */
export function writeBatch(db: Db, batch: PreparedBatch, options: IngestOptions): IngestResult {
  const result: IngestResult = {
    records: 0,
    documents: 0,
    forgotten: 0,
    rawChunks: 0,
    rawBytes: 0,
    rawStored: 0,
    pruned: { chunks: 0, bytes: 0 },
  };
  const engine = prepareWriter(db);
  const fts = engine === "fts5";
  // Every document write looks its key up: without the index or its stand-in (a first load
  // killed before its end, then another writer), each would scan the table.
  if (!documentKeysDeferred(db)) restoreReadIndex(db, DOCUMENT_KEY_INDEX);
  const redaction = options.redaction ?? DEFAULT_REDACTION;
  const write = () => {
    const tombstones = loadTombstones(db);
    // These statements' triggers delete or rewrite FTS rows, which must exist by then.
    if (
      fts &&
      (batch.resets.length > 0 ||
        (batch.deletions?.length ?? 0) > 0 ||
        batch.conversations.some((c) => c.kind === "chat"))
    )
      flushFts(db);
    // A record's row holds its document (schema 16): deleting the rows takes both, and their
    // FTS rows (trigger) and participants (foreign key).
    for (const id of batch.resets) {
      statement(db, RESET_RECORDS).run(id);
      statement(db, RESET_CONVERSATION).run(id);
    }
    // Before any record of this batch is written (their FTS rows are queued for the end).
    removeDeleted(db, options.source, batch.deletions ?? []);
    // Only FTS5's planner carries term statistics by rowid; the plain engine's folded copy
    // references its document's rowid, which therefore stays.
    const inPlace = (options.textInPlace ?? false) || !fts;
    // A conversation a session or project forget named keeps no title: a re-read of its file
    // gives the title again, with no time to tell whether it came after the forget. Any other
    // title is written, searched and shown with its secrets redacted (a pasted token often
    // opens a session, and its first prompt is its title).
    const shownRefs = new Map<ConversationRef, ConversationRef>();
    const shown = (ref: ConversationRef): ConversationRef => {
      if (ref.title === null) return ref;
      let copy = shownRefs.get(ref);
      if (copy) return copy;
      if (tombstones.count > 0 && tombstones.conversation(ref)) copy = { ...ref, title: null };
      else {
        const title = redaction.redact(ref.title);
        copy = title === ref.title ? ref : { ...ref, title };
      }
      shownRefs.set(ref, copy);
      return copy;
    };
    for (const ref of batch.conversations) refreshChat(db, shown(ref), inPlace);
    const conversations = new Map<string, ConversationWrite>();
    const noteConversation = (ref: ConversationRef): ConversationWrite => {
      let write = conversations.get(ref.id);
      if (!write) {
        write = {
          ref,
          startedAt: null,
          updatedAt: null,
          next: null,
          fresh: null,
          keep: !tombstones.conversation(ref),
        };
        conversations.set(ref.id, write);
      } else if (write.ref !== ref) {
        write.ref = mergeRef(write.ref, ref);
      }
      return write;
    };
    for (const ref of batch.conversations) noteConversation(shown(ref));

    for (const record of batch.records) {
      const conversation = shown(record.conversation);
      const write = noteConversation(conversation);
      if (tombstones.record(record.conversation, record.at, record.participants)) {
        result.forgotten += 1;
        continue;
      }
      write.keep = true;
      write.startedAt = write.startedAt === null ? record.at : Math.min(write.startedAt, record.at);
      write.updatedAt = write.updatedAt === null ? record.at : Math.max(write.updatedAt, record.at);
      const shownRecord = conversation === record.conversation ? record : { ...record, conversation };
      if (writeRecord(db, shownRecord, write, options.projectionVersion, inPlace, fts)) result.documents += 1;
      result.records += 1;
    }
    // A record carries its conversation as of its emission, which may predate a title or model
    // the source learned later in the batch: the source's list, in learning order, has the last word.
    for (const ref of batch.conversations) noteConversation(shown(ref));

    for (const write of conversations.values()) {
      if (!write.keep) continue;
      const ref = write.ref;
      statement(db, UPSERT_CONVERSATION).run({
        id: ref.id,
        source: ref.source,
        agent: ref.agent,
        kind: ref.kind,
        project: ref.project,
        session: ref.session,
        parent: ref.parent,
        title: ref.title,
        startedAt: write.startedAt,
        updatedAt: write.updatedAt,
        nextOrdinal: write.next ?? 0,
        model: ref.model ?? null,
        branch: ref.branch ?? null,
      });
    }

    for (const alias of batch.aliases) {
      // A forgotten session's title must not come back with a re-read of its file (an alias has
      // no time to tell a title given after the forget; the session's id still finds it).
      if (alias.alias.length > 0 && alias.alias.length <= 500 && !tombstones.session(alias.session)) {
        statement(db, INSERT_ALIAS).run(redaction.redact(alias.alias), alias.session, alias.source);
      }
    }
    for (const claim of batch.titleClaims ?? []) {
      if (!tombstones.conversation(claim.origin))
        claimTitle(db, { ...claim, title: redaction.redact(claim.title) });
    }

    for (const chunk of batch.rawChunks) {
      if (tombstones.chunk(chunk, conversations, db)) {
        result.forgotten += 1;
        continue;
      }
      if (chunk.dedupe && sameRawExists(db, chunk)) continue;
      const { data, codec } = chunk;
      statement(db, INSERT_RAW).run(
        chunk.source,
        chunk.file,
        chunk.conversation,
        chunk.offset,
        chunk.length,
        options.now,
        data,
        chunk.epoch,
        chunk.firstAt,
        chunk.lastAt,
        data.length,
        chunk.unit ?? "byte",
        codec,
      );
      result.rawChunks += 1;
      result.rawBytes += chunk.length;
      result.rawStored += data.length;
    }

    for (const checkpoint of batch.checkpoints) {
      statement(db, UPSERT_CHECKPOINT).run({ ...checkpoint, updatedAt: options.now });
    }

    const progress = batch.progress;
    statement(db, UPDATE_STATS).run({
      source: options.source,
      oversized: batch.counters.oversized,
      malformed: batch.counters.malformed,
      skipped: batch.counters.skipped,
      rewritten: batch.counters.rewritten ?? 0,
      unreadable: batch.counters.unreadable ?? 0,
      rawChunks: result.rawChunks,
      rawBytes: result.rawBytes,
      rawStored: result.rawStored,
      filesKnown: progress?.filesKnown ?? null,
      backlogFiles: progress?.backlogFiles ?? null,
      backlogBytes: progress?.backlogBytes ?? null,
      discovered: progress?.discovered ? 1 : 0,
      now: options.now,
    });
    if (options.rawMaxBytesPerSource) {
      result.pruned = pruneRaw(db, options.source, options.rawMaxBytesPerSource);
    }
    // Last: FTS rows of new documents (fts-queue.ts), here or at the end of a backfill group.
    if (fts) endBatchFts(db);
  };
  // Inside a caller's transaction (a backfill groups ticks) the batch joins it directly: a
  // nested savepoint would copy every page it touches into a sub-journal.
  if (db.inTransaction) write();
  else db.transaction(write)();
  return result;
}

/** Deleted on purpose in the source: the record, its document, and an emptied conversation go. */
function removeDeleted(
  db: Db,
  source: string,
  deletions: { conversation: string; sourceKey: string }[],
): void {
  const touched = new Set<string>();
  for (const d of deletions) {
    statement(db, DELETE_RECORD).run(d.conversation, d.sourceKey); // its document with it
    touched.add(d.conversation);
  }
  for (const id of touched) {
    if (!statement(db, HAS_RECORDS).get(id)) statement(db, DELETE_CONVERSATION).run(id, source);
  }
}

/**
 * Records (and their documents) written under keys a merged record now covers. A conversation
 * new in this batch has only the keys in `fresh`, so a first load does no lookups here.
 */
function removeSuperseded(
  db: Db,
  conv: ConversationRef,
  keys: readonly string[],
  fresh: Set<string> | null,
  fts: boolean,
  epoch: number,
): void {
  for (const plain of keys) {
    // In a rewritten file's later version, only that version's own records are superseded.
    const key = epoch > 0 ? keyForVersion(db, conv.id, plain, epoch, null) : plain;
    if (key === null) continue;
    if (fresh && !fresh.has(key)) continue;
    const stale = statement(db, FIND_RECORD).get(conv.id, key) as { id: number } | undefined;
    if (!stale) continue;
    // The row holds its document: its trigger deletes the FTS row, which must exist by then.
    if (fts) flushFtsRow(db, stale.id);
    statement(db, DELETE_RECORD_ID).run(stale.id);
    fresh?.delete(key);
  }
}

/**
 * A record of a rewritten file's later version (epoch above 0) whose key the conversation already
 * holds from an earlier version, with other text: the earlier record is history and stays as it
 * is; this one is kept beside it under its key and hit id marked with the version (`~<epoch>`).
 * The same text is the same record (a file rewritten with lines it held before): it stays one.
 */
function besideEarlierVersion(db: Db, record: PreparedRecord, text: string, fts: boolean): PreparedRecord {
  const conv = record.conversation;
  const key = keyForVersion(db, conv.id, record.sourceKey, record.epoch!, text);
  // This version's own record of the line, written under another key while the line was still
  // growing (a streamed response read half-written), is replaced by the one it turned out to be.
  const own = keyForVersion(db, conv.id, record.sourceKey, record.epoch!, null);
  if (key !== null && own !== null && own !== key) removeSuperseded(db, conv, [own], null, fts, 0);
  if (key === null || key === record.sourceKey) return record;
  return { ...record, sourceKey: key, hitId: `${record.hitId}${key.slice(record.sourceKey.length)}` };
}

/**
 * Which key a line's record of version `epoch` is written under: the key of a record with the
 * same text in any version, else this version's own record of the line, else the plain key when
 * no version holds it, else a new marked one. `text` null: only an existing record (or null).
 */
function keyForVersion(
  db: Db,
  conversation: string,
  key: string,
  epoch: number,
  text: string | null,
): string | null {
  const versions = statement(db, RECORD_VERSIONS).all({ conversation, key }) as {
    key: string;
    epoch: number;
    text: string;
  }[];
  const same = text !== null ? versions.find((v) => v.text === text) : undefined;
  const own = versions.find((v) => v.epoch === epoch);
  if (same ?? own) return (same ?? own)!.key;
  if (text === null) return null;
  return versions.length === 0 ? key : `${key}~${epoch}`;
}

/**
 * A chat renamed in its app (or its app moved): its documents carry the chat title (searched,
 * weighted above the body) and the project, so they follow. Only chats: a transcript's title
 * lines never rewrite documents already written.
 */
function refreshChat(db: Db, ref: ConversationRef, inPlace: boolean): void {
  if (ref.kind !== "chat") return;
  const stored = statement(db, CONVERSATION_META).get(ref.id) as
    { title: string | null; project: string | null } | undefined;
  if (!stored) return;
  const title = ref.title;
  const retitle = title !== null && stored.title !== title;
  const reproject = ref.project !== null && stored.project !== ref.project;
  if (retitle) {
    const searched = separateCjk(title);
    const docs = statement(db, RETITLED_DOCUMENTS).all(ref.id, searched) as ({
      id: number;
      source: string;
      key: string;
    } & StoredBody)[];
    for (const doc of docs)
      renewText(db, doc, { title: searched, body: documentBody(doc) }, doc.body, inPlace);
  }
  if (reproject) statement(db, REPROJECT_DOCUMENTS).run(ref.project, ref.id, ref.project);
}

function sameRawExists(db: Db, chunk: PreparedChunk): boolean {
  return (
    statement(db, SAME_RAW).get(
      chunk.source,
      chunk.file,
      chunk.epoch,
      chunk.offset,
      chunk.length,
      chunk.conversation,
    ) !== undefined
  );
}

/**
 * A title for whichever conversation holds the claim's leaf record, when that record is
 * indexed and its conversation has no title yet (a title its own file gave is never replaced).
 */
function claimTitle(db: Db, claim: TitleClaim): void {
  const doc = findDocument(db, claim.origin.source, claim.leaf);
  if (!doc?.conversation) return;
  const titled = statement(db, CLAIM_TITLE).get(claim.title, doc.conversation) as
    { session: string | null } | undefined;
  if (titled?.session && claim.title.length <= 500) {
    statement(db, INSERT_ALIAS).run(claim.title, titled.session, claim.origin.source);
  }
}

/** A later ref of the same conversation adds what it learned; nulls never erase. */
function mergeRef(a: ConversationRef, b: ConversationRef): ConversationRef {
  // Most records of a batch repeat what their conversation's first ref said: no new object.
  if (
    (b.project ?? a.project) === a.project &&
    (b.session ?? a.session) === a.session &&
    (b.parent ?? a.parent) === a.parent &&
    (b.title ?? a.title) === a.title &&
    (b.model ?? a.model ?? null) === (a.model ?? null) &&
    (b.branch ?? a.branch ?? null) === (a.branch ?? null)
  )
    return a;
  return {
    ...a,
    project: b.project ?? a.project,
    session: b.session ?? a.session,
    parent: b.parent ?? a.parent,
    title: b.title ?? a.title,
    model: b.model ?? a.model ?? null,
    branch: b.branch ?? a.branch ?? null,
  };
}

/**
 * Writes the retained record and, when the projection is indexable, its document. With FTS5,
 * a new document's FTS row is queued (fts-queue.ts) and inserted after the batch's other writes.
 */
function writeRecord(
  db: Db,
  record: PreparedRecord,
  write: ConversationWrite,
  projectionVersion: number,
  inPlace: boolean,
  fts: boolean,
): boolean {
  const conv = record.conversation;
  const projected = record.projected;
  if ((record.epoch ?? 0) > 0) record = besideEarlierVersion(db, record, projected.read.text, fts);
  const key = record.sourceKey;
  // Hit ids are stored only where the row's columns do not give them (store/hit-ids.ts).
  const ownHitId = recordOwnHitId(
    record.kind,
    conv.id,
    key,
    projected.search.indexable ? record.hitId : null,
  );
  const truncated = projected.read.truncated ? 1 : 0;
  const model = record.model ?? null;
  const branch = record.branch ?? null;
  if (write.next === null) {
    statement(db, ENSURE_CONVERSATION).run(conv.id, conv.source, conv.agent, conv.kind);
    const next = statement(db, READ_ORDINAL).get(conv.id) as { n: number } | undefined;
    write.next = next?.n ?? 0;
    // A conversation without records yet needs no lookups, only a guard against repeats.
    write.fresh = write.next === 0 ? new Set() : null;
  }
  const existing =
    write.fresh && !write.fresh.has(key)
      ? undefined
      : (statement(db, FIND_RECORD).get(conv.id, key) as { id: number } | undefined);
  // The document's searched text as it stands, read before its record's text is rewritten.
  const doc = findDocument(db, conv.source, key);
  const ownDoc = doc && doc.conversation === conv.id ? doc : undefined;
  const before =
    ownDoc && projected.search.indexable
      ? (statement(db, DOCUMENT_TEXT).get(ownDoc.id) as ({ title: string } & StoredBody) | undefined)
      : undefined;
  // The values both statements share, in their parameter order.
  const values = [
    record.at,
    record.role,
    record.kind,
    ownHitId,
    projected.read.text,
    truncated,
    record.cursor,
    model,
    branch,
  ];
  /** The row's new document, set on it: found by its key, searched, and its participants. */
  const documentAdded = (id: number, text: FtsRow): true => {
    if (!noteDocument(db, conv.source, key, id)) restoreReadIndex(db, DOCUMENT_KEY_INDEX);
    if (fts) queueFts(db, id, text);
    if (record.participants) writeParticipants(db, id, record.participants, false);
    return true;
  };
  const oneInsert = !existing && !doc && projected.search.indexable && !record.supersedes;
  // Only an indexable record has a document to write (computed where one is written).
  const document = oneInsert ? documentColumns(record, projectionVersion, fts) : null;
  let recordId: number;
  if (existing) {
    statement(db, UPDATE_RECORD).run(...values, existing.id, ...values);
    recordId = existing.id;
  } else {
    const insert = document
      ? statement(db, INSERT_RECORD_DOCUMENT).run(...values, conv.id, write.next, key, ...document.columns)
      : statement(db, INSERT_RECORD).run(...values, conv.id, write.next, key);
    recordId = Number(insert.lastInsertRowid);
    write.next += 1;
    write.fresh?.add(key);
  }
  if (record.epoch) statement(db, MARK_EPOCH).run(record.epoch, recordId, record.epoch);
  if (document) return documentAdded(recordId, document.text);

  if (doc && !ownDoc) return false; // the first conversation keeps it
  // Not past the check above: a copy whose first line another conversation keeps writes no
  // document of its own, so its later lines' documents are the only ones holding their text.
  if (record.supersedes) removeSuperseded(db, conv, record.supersedes, write.fresh, fts, record.epoch ?? 0);
  // A document inserted earlier gets its FTS row before a trigger deletes or rewrites it.
  if (doc && fts) flushFtsRow(db, doc.id);
  if (!projected.search.indexable) {
    if (doc) statement(db, DELETE_DOCUMENT).run(doc.id);
    return false;
  }
  const { text, stored, columns, compaction, searchTruncated } = documentColumns(
    record,
    projectionVersion,
    fts,
  );
  const { title, body } = text;
  if (doc) {
    const meta = [record.job, record.run, record.message, compaction, searchTruncated, projectionVersion];
    statement(db, UPDATE_DOCUMENT).run(conv.project, ...meta, doc.id, conv.project, ...meta);
    const changed =
      !before || before.title !== title || documentBody(before) !== body || before.body !== stored;
    const id = changed
      ? renewText(db, { id: doc.id, source: conv.source, key }, { title, body }, stored, inPlace)
      : doc.id;
    if (record.participants) writeParticipants(db, id, record.participants, true);
  } else {
    statement(db, SET_DOCUMENT).run(...columns, recordId);
    documentAdded(recordId, text);
  }
  return true;
}

/**
 * A record's document as SET_DOCUMENT and INSERT_RECORD_DOCUMENT write it (in their parameter
 * order): its searched text (title and body) and the body stored.
 */
function documentColumns(
  record: PreparedRecord,
  projectionVersion: number,
  fts: boolean,
): { text: FtsRow; stored: string; columns: unknown[]; compaction: 0 | 1; searchTruncated: 0 | 1 } {
  const { conversation: conv, projected } = record;
  // The title is searched as the body is: CJK characters separate tokens (projection/cjk.ts).
  const title = separateCjk(conv.title ?? "");
  const body = projected.search.text;
  // One stored copy of the text: the record's, when it gives the searched text (store/document-text.ts).
  const stored = fts ? storedBody(body, projected.read.text, projected.searchFromRead) : body;
  const compaction = projected.isCompactionSummary ? 1 : 0;
  const searchTruncated = projected.search.truncated ? 1 : 0;
  const columns = [
    conv.project,
    record.job,
    record.run,
    record.message,
    record.appId ?? null,
    record.chatId ?? null,
    title,
    stored,
    compaction,
    searchTruncated,
    projectionVersion,
    fts ? 1 : 0,
  ];
  return { text: { title, body }, stored, columns, compaction, searchTruncated };
}

/**
 * Writes a document's new text — searched `text`, stored `body` ('' for its record's) — and its
 * FTS row, under a new rowid unless `inPlace` (IngestOptions.textInPlace); returns its rowid.
 * Term statistics (search/term-cache.ts, store/term-stats.ts) hold impact lists of the rows up to
 * the highest rowid they saw, and the planner scores the rows above it itself: a text rewritten
 * in place (a Claude Code response whose later line came in a later poll) was missing from lists
 * built before, and not found by their terms until the cache started over. Rowids are never
 * reused (schema v8), so the new one is above every mark. Participants reference the rowid (no
 * ON UPDATE action) and move with it; the plain engine, which carries no term statistics, keeps
 * the rowid its folded copy references.
 */
function renewText(
  db: Db,
  doc: { id: number; source: string; key: string },
  text: FtsRow,
  body: string,
  inPlace: boolean,
): number {
  if (inPlace) {
    statement(db, UPDATE_DOCUMENT_TEXT).run({ id: doc.id, title: text.title, body });
    replaceFts(db, doc.id, text);
    return doc.id;
  }
  const identities = pluckedStatement(db, PARTICIPANTS_OF).all(doc.id) as string[];
  if (identities.length > 0) statement(db, CLEAR_PARTICIPANTS).run(doc.id);
  const id = pluckedStatement(db, RENEW_DOCUMENT).get({ id: doc.id, title: text.title, body }) as number;
  statement(db, ADVANCE_SEQUENCE).run(id);
  moveFts(db, doc.id, id, text);
  writeParticipants(db, id, identities, false);
  // The deferred key index's stand-in still names the old rowid, which no longer exists.
  if (!noteDocument(db, doc.source, doc.key, id)) restoreReadIndex(db, DOCUMENT_KEY_INDEX);
  return id;
}

/** The identities the `session` filter finds a document under besides its session (bridge messages). */
function writeParticipants(db: Db, document: number, identities: readonly string[], replace: boolean): void {
  if (replace) statement(db, CLEAR_PARTICIPANTS).run(document);
  for (const identity of identities) statement(db, INSERT_PARTICIPANT).run(identity, document);
}

export type { Tombstones };
