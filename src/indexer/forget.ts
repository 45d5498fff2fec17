import { z } from "zod";
import path from "node:path";
import { RecallError } from "../core/errors.js";
import type { Db } from "../store/open.js";
import { eraseDeleted, removeBackups } from "../store/erase.js";
import { recordIdOfHit } from "../store/hit-ids.js";
import { deleteDocuments } from "../store/record-rows.js";
import { noteDocumentsRewritten } from "../store/rewrites.js";
import { statement } from "../store/statements.js";
import { sessionFilter } from "../search/session-aliases.js";

/** What `recall forget` removes; also the payload of the broker's "forget" request. */
export const ForgetScope = z.union([
  z.object({ session: z.string().min(1) }).strict(),
  z.object({ project: z.string().min(1) }).strict(),
  z.object({ since: z.number().int(), until: z.number().int() }).strict(),
]);
export type ForgetScope = z.infer<typeof ForgetScope>;

export interface ForgetResult {
  sessions: string[];
  conversations: number;
  documents: number;
  records: number;
  rawChunks: number;
  rawBytes: number;
  tombstones: number;
  /** Set when the deletion was erased from the files (not in a preview). */
  erased?: { walTruncated: boolean; backupsRemoved: number; vacuumFailed?: string };
}

const CONVERSATIONS_OF_SESSIONS = `SELECT id FROM recall_conversations
  WHERE session IN (SELECT value FROM json_each(@sessions)) OR id IN (SELECT value FROM json_each(@sessions))`;
/**
 * A project's conversations: those it is recorded on and those holding a document of it, each
 * with whether it also holds documents of another project or of none (an agent-bridge thread
 * spans projects): those stay, as the tombstone, which drops records of the project, keeps them.
 */
const CONVERSATIONS_OF_PROJECT = `SELECT c.id,
    EXISTS (SELECT 1 FROM recall_documents d
            WHERE d.conversation = c.id AND d.project IS NOT @project) AS mixed
  FROM recall_conversations c
  WHERE c.project = @project
     OR c.id IN (SELECT conversation FROM recall_documents WHERE project = @project)`;
/** A mixed conversation keeps its other projects' records: only this project's go. */
const RECORDS_OF_PROJECT = `DELETE FROM recall_record_rows WHERE id IN (SELECT id FROM recall_records
  WHERE conversation = @conversation
    AND hit_id IN (SELECT hit_id FROM recall_documents WHERE conversation = @conversation AND project = @project))`;
const DOCUMENTS_OF_PROJECT = `conversation = @conversation AND project = @project`;
/** What the conversation now says its project is: its newest remaining document's. */
const REPROJECT = `UPDATE recall_conversations SET project = (SELECT project FROM recall_documents
    WHERE conversation = @conversation AND project IS NOT NULL ORDER BY at DESC LIMIT 1)
  WHERE id = @conversation AND project = @project`;
const ALL_CONVERSATIONS = `(SELECT value FROM json_each(@conversations))`;
/** Documents of other conversations that a forgotten identity took part in (the bridge's). */
const DOCUMENTS_OF_PARTICIPANTS = `SELECT DISTINCT d.id, d.hit_id AS hitId, d.conversation
  FROM recall_document_participants p JOIN recall_documents d ON d.id = p.document
  WHERE p.identity IN (SELECT value FROM json_each(@sessions))
    AND d.conversation NOT IN ${ALL_CONVERSATIONS}`;
const DELETE_RECORD = `DELETE FROM recall_record_rows WHERE id = ?`;
/**
 * A file checkpoint keeps its parser's state (held lines, pending titles) and what it learned (the
 * title): text of the conversation, which must go with it. The cursor stays, so the file is not
 * read again from its start.
 */
const SCRUB_CHECKPOINTS = `UPDATE recall_checkpoints SET state = json_remove(state, '$.parser', '$.learned')
  WHERE json_valid(state) AND json_extract(state, '$.conversation') IN ${ALL_CONVERSATIONS}`;
const DOCUMENT_BY_ID = `id = @id`;

const RAW_BY_SOURCE = `SELECT source, count(*) AS chunks, coalesce(sum(length), 0) AS bytes,
  coalesce(sum(stored), 0) AS stored FROM recall_raw_chunks WHERE %WHERE% GROUP BY source`;
const UNCOUNT_RAW = `UPDATE recall_source_stats SET raw_chunks = max(0, raw_chunks - @chunks),
  raw_bytes = max(0, raw_bytes - @bytes), raw_stored = max(0, raw_stored - @stored) WHERE source = @source`;
const TOMBSTONE = `INSERT INTO recall_tombstones (scope, value, since, until, created_at) VALUES (?, ?, ?, ?, ?)`;

/**
 * Deletes history on purpose: index documents, retained records, raw chunks (and, for a
 * session or project, the conversations and their aliases), then leaves a tombstone so a
 * later scan or rebuild does not bring them back (sources are re-read from their checkpoints,
 * and tombstoned records and chunks are dropped at ingest). A session may be given by any of
 * its aliases; forgetting a session also forgets its subagent conversations. A project is its
 * canonical path; a conversation that also holds other projects' documents (an agent-bridge
 * thread) loses only this project's records, as the tombstone drops them at a rebuild. A time
 * range (inclusive, epoch ms) removes the records inside it from every retained conversation,
 * and the raw chunks holding any of them.
 */
export function forget(db: Db, scope: ForgetScope, now: number): ForgetResult {
  // A preview runs inside a transaction it rolls back: nothing is deleted, nothing to erase.
  const erase = !db.inTransaction;
  const secure = db.pragma("secure_delete", { simple: true }) as number;
  if (erase) db.pragma("secure_delete = ON");
  try {
    const result = forgetRows(db, scope, now);
    if (erase) {
      // Out of the files too (store/erase.ts), backups included: each is a whole earlier copy.
      const erased = eraseDeleted(db);
      const file = db.name;
      const backupsRemoved = path.isAbsolute(file) ? removeBackups(file) : 0;
      result.erased = { ...erased, backupsRemoved };
    }
    return result;
  } finally {
    if (erase) db.pragma(`secure_delete = ${secure}`);
  }
}

function forgetRows(db: Db, scope: ForgetScope, now: number): ForgetResult {
  const result: ForgetResult = {
    sessions: [],
    conversations: 0,
    documents: 0,
    records: 0,
    rawChunks: 0,
    rawBytes: 0,
    tombstones: 0,
  };
  db.transaction(() => {
    // Persisted term statistics name terms (the forgotten text's among them) and hold the ids of
    // documents about to go: dropped, and caches told to start over; the broker builds them again.
    noteDocumentsRewritten(db);
    if ("since" in scope) {
      const range = { since: scope.since, until: scope.until };
      result.documents = deleteDocuments(
        db,
        "at BETWEEN @since AND @until AND conversation IN (SELECT id FROM recall_conversations)",
        range,
      );
      result.records = db
        .prepare(`DELETE FROM recall_record_rows WHERE at BETWEEN @since AND @until`)
        .run(range).changes;
      const where = "first_at IS NOT NULL AND first_at <= @until AND last_at >= @since";
      uncountRaw(db, where, range, result);
      if (result.documents + result.records + result.rawChunks === 0) {
        throw new RecallError("NotFound", "nothing indexed falls in that time range; nothing forgotten");
      }
      db.prepare(`DELETE FROM recall_raw_chunks WHERE ${where}`).run(range);
      statement(db, TOMBSTONE).run("range", null, scope.since, scope.until, now);
      result.tombstones = 1;
      return;
    }
    let conversations: string[];
    if ("session" in scope) {
      // Exactly what the session filter matches: its sessions, the bridge peers bound to it, and
      // the agent-bridge documents any of them took part in (sent, received, asked, answered).
      result.sessions = sessionFilter(db, scope.session);
      const sessions = { sessions: JSON.stringify(result.sessions) };
      conversations = (db.prepare(CONVERSATIONS_OF_SESSIONS).all(sessions) as { id: string }[]).map(
        (r) => r.id,
      );
      const participated = db
        .prepare(DOCUMENTS_OF_PARTICIPANTS)
        .all({ ...sessions, conversations: JSON.stringify(conversations) }) as {
        id: number;
        hitId: string;
        conversation: string;
      }[];
      for (const doc of participated) {
        const record = recordIdOfHit(db, doc.conversation, doc.hitId);
        result.documents += deleteDocuments(db, DOCUMENT_BY_ID, { id: doc.id });
        if (record !== undefined) result.records += statement(db, DELETE_RECORD).run(record).changes;
      }
      if (participated.length > 0)
        result.conversations += new Set(participated.map((d) => d.conversation)).size;
    } else {
      const found = db.prepare(CONVERSATIONS_OF_PROJECT).all({ project: scope.project }) as {
        id: string;
        mixed: number;
      }[];
      conversations = found.filter((c) => !c.mixed).map((c) => c.id);
      for (const { id } of found.filter((c) => c.mixed)) {
        const params = { conversation: id, project: scope.project };
        // The records go by their documents' hit ids: counted before, deleted after them.
        const documents = db
          .prepare(`SELECT count(*) FROM recall_documents WHERE ${DOCUMENTS_OF_PROJECT}`)
          .pluck()
          .get(params) as number;
        result.records += db.prepare(RECORDS_OF_PROJECT).run(params).changes;
        result.documents += documents;
        deleteDocuments(db, DOCUMENTS_OF_PROJECT, params);
        db.prepare(REPROJECT).run(params);
        result.conversations += 1;
      }
    }
    // Subagents and child sessions go with their parent.
    for (let i = 0; i < conversations.length; i++) {
      const children = db
        .prepare("SELECT id FROM recall_conversations WHERE parent = ?")
        .all(conversations[i]) as { id: string }[];
      for (const child of children) if (!conversations.includes(child.id)) conversations.push(child.id);
    }
    if (conversations.length === 0 && result.conversations === 0) {
      // A mistyped id or path would otherwise leave a tombstone and a report of success.
      const what = "session" in scope ? `session ${scope.session}` : `project ${scope.project}`;
      throw new RecallError("NotFound", `no indexed history for ${what}; nothing forgotten`);
    }
    const params = { conversations: JSON.stringify(conversations) };
    result.conversations += conversations.length;
    result.documents += deleteDocuments(db, `conversation IN ${ALL_CONVERSATIONS}`, params);
    result.records += db
      .prepare(
        `DELETE FROM recall_record_rows WHERE conversation_ref IN
           (SELECT ref FROM recall_conversations WHERE id IN ${ALL_CONVERSATIONS})`,
      )
      .run(params).changes;
    const where = `conversation IN ${ALL_CONVERSATIONS}`;
    uncountRaw(db, where, params, result);
    db.prepare(`DELETE FROM recall_raw_chunks WHERE ${where}`).run(params);
    const sessions = (
      db
        .prepare(
          `SELECT DISTINCT session FROM recall_conversations WHERE id IN ${ALL_CONVERSATIONS} AND session IS NOT NULL`,
        )
        .all(params) as { session: string }[]
    ).map((r) => r.session);
    db.prepare(`DELETE FROM recall_conversations WHERE id IN ${ALL_CONVERSATIONS}`).run(params);
    db.prepare(SCRUB_CHECKPOINTS).run(params);
    if ("session" in scope) {
      const all = [...new Set([...result.sessions, ...sessions])];
      db.prepare(
        `DELETE FROM recall_session_aliases WHERE session IN (SELECT value FROM json_each(?)) OR alias IN (SELECT value FROM json_each(?))`,
      ).run(JSON.stringify(all), JSON.stringify(all));
      for (const session of all) statement(db, TOMBSTONE).run("session", session, null, null, now);
      for (const id of conversations) statement(db, TOMBSTONE).run("session", id, null, null, now);
      result.tombstones = all.length + conversations.length;
      result.sessions = all;
    } else {
      // Sessions left without a conversation go whole, titles too: their session tombstones also
      // keep the titles out of a re-read (ingest.ts), which a project tombstone cannot name.
      const gone = db
        .prepare(
          `SELECT value FROM json_each(?) WHERE NOT EXISTS (SELECT 1 FROM recall_conversations c WHERE c.session = value)`,
        )
        .pluck()
        .all(JSON.stringify(sessions)) as string[];
      db.prepare(`DELETE FROM recall_session_aliases WHERE session IN (SELECT value FROM json_each(?))`).run(
        JSON.stringify(gone),
      );
      for (const session of gone) statement(db, TOMBSTONE).run("session", session, null, null, now);
      statement(db, TOMBSTONE).run("project", scope.project, null, null, now);
      result.tombstones = 1 + gone.length;
    }
  })();
  return result;
}

function uncountRaw(db: Db, where: string, params: Record<string, unknown>, result: ForgetResult): void {
  const rows = db.prepare(RAW_BY_SOURCE.replace("%WHERE%", where)).all(params) as {
    source: string;
    chunks: number;
    bytes: number;
    stored: number;
  }[];
  for (const row of rows) {
    statement(db, UNCOUNT_RAW).run(row);
    result.rawChunks += row.chunks;
    result.rawBytes += row.bytes;
  }
}
