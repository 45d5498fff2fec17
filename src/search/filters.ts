import type { DocumentKind } from "../core/kinds.js";

/** Filters applied inside the ranked query (never after a top-N cut). */
export interface DocumentFilters {
  project?: string;
  /** Session ids, already expanded from aliases. */
  sessions?: string[];
  job?: string;
  agent?: string;
  /** Documents of any of these agents (the agent filter's `other` names several: sources/derive.ts). */
  agents?: readonly string[];
  kind?: DocumentKind;
  since?: number;
  until?: number;
  appId?: number;
  excludeChatId?: number;
  excludeSession?: string;
  /** The calling session and its known aliases: their own records are left out. */
  excludeSessions?: string[];
  /**
   * False on an index not migrated to schema v2 yet (a reader never migrates): `sessions` then
   * matches document sessions only, not bridge message participants.
   */
  participants?: boolean;
  /**
   * True where a document is its record's row (history.db from schema 16): its session is its
   * conversation's, and sessions are matched through the conversations' ref, a column of the
   * row, so SQLite can list a session's rows (and a participant's) by index.
   */
  conversationRefs?: boolean;
}

/** SQL conditions over alias `d` (recall_documents) and their parameters. */
export function filterSql(filters: DocumentFilters): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (filters.project !== undefined) {
    // A path's accented letters may be stored composed or decomposed (macOS file systems hand
    // out the decomposed form, people type the composed one): either finds it.
    const forms = [
      ...new Set([filters.project, filters.project.normalize("NFC"), filters.project.normalize("NFD")]),
    ];
    add(`d.project IN (${forms.map(() => "?").join(", ")})`, ...forms);
  }
  if (filters.sessions !== undefined && filters.participants === false) {
    add(`d.session IN (${filters.sessions.map(() => "?").join(", ") || "NULL"})`, ...filters.sessions);
  } else if (filters.sessions !== undefined) {
    const marks = filters.sessions.map(() => "?").join(", ") || "NULL";
    const ofSessions = filters.conversationRefs
      ? `d.conversation_ref IN (SELECT ref FROM recall_conversations WHERE session IN (${marks}))`
      : `d.session IN (${marks})`;
    // A bridge message is one document for its sender and every recipient (a broadcast): any
    // of those identities finds it.
    add(
      `(${ofSessions} OR d.id IN (SELECT p.document FROM recall_document_participants p WHERE p.identity IN (${marks})))`,
      ...filters.sessions,
      ...filters.sessions,
    );
  }
  if (filters.job !== undefined) {
    // Run metadata names the CLI session a job ran in: that session's transcripts match too.
    // Only transcripts: another job's run or message in the same session names its own job.
    add(
      `(d.job = ? OR (d.kind = 'transcript' AND d.session IN (SELECT r.session FROM recall_documents r WHERE r.job = ? AND r.kind = 'run' AND r.session IS NOT NULL)))`,
      filters.job,
      filters.job,
    );
  }
  if (filters.agent !== undefined) add("d.agent = ?", filters.agent);
  if (filters.agents !== undefined)
    add(`d.agent IN (${filters.agents.map(() => "?").join(", ") || "NULL"})`, ...filters.agents);
  if (filters.kind !== undefined) add("d.kind = ?", filters.kind);
  if (filters.since !== undefined) add("d.at >= ?", filters.since);
  if (filters.until !== undefined) add("d.at <= ?", filters.until);
  if (filters.appId !== undefined) add("d.app_id = ?", filters.appId);
  if (filters.excludeChatId !== undefined) add("d.chat_id IS NOT ?", filters.excludeChatId);
  if (filters.excludeSession !== undefined) add("d.session IS NOT ?", filters.excludeSession);
  if (filters.excludeSessions !== undefined && filters.excludeSessions.length > 0) {
    add(
      `(d.session IS NULL OR d.session NOT IN (${filters.excludeSessions.map(() => "?").join(", ")}))`,
      ...filters.excludeSessions,
    );
  }
  return { where, params };
}
