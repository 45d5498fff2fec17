import { CJK_SEPARATOR } from "../projection/cjk.js";
import { DocumentKind } from "../core/kinds.js";
import { SEARCH_PROJECTION_MAX_BYTES } from "../projection/bounds.js";
import type { Db } from "../store/open.js";
import { documentIdOfHit } from "../store/hit-ids.js";
import { statement } from "../store/statements.js";
import { documentBody, RECORD_TEXT_COLUMN, type StoredBody } from "../store/document-text.js";
import { navigationLink } from "./links.js";

/** One indexed document as the history spec's source link returns it (`/api/history/<id>`). */
export interface HistoryDocument {
  id: string;
  kind: string;
  agent: string;
  at: number;
  body: string;
  link: string;
  message: string | null;
  job: string | null;
  run: string | null;
  session: string | null;
  cursor: string | null;
}

export const HIT_ID_MAX_CHARS = 1000;
const HIT_ID = new RegExp(`^(${DocumentKind.options.join("|")}):[^\\u0000-\\u001f\\u007f]+$`);

/** A hit id has the shape `<kind>:<rest>` with no control characters; anything else is malformed. */
export function isWellFormedHitId(id: string): boolean {
  return id.length <= HIT_ID_MAX_CHARS && HIT_ID.test(id);
}

interface DocumentRow extends Omit<HistoryDocument, "link"> {
  conversation: string | null;
}

/**
 * The derived, bounded excerpt of one hit (the projection, never the source file), or undefined
 * when no document has that id. The body is already bounded by the projection; the SQL cut
 * keeps the answer bounded whatever an older index holds.
 */
export function historyDocument(db: Db, hitId: string): HistoryDocument | undefined {
  const id = documentIdOfHit(db, hitId);
  if (id === undefined) return undefined;
  const row = statement(
    db,
    `SELECT d.hit_id AS id, d.kind, d.agent, d.at, substr(d.body, 1, ${SEARCH_PROJECTION_MAX_BYTES}) AS body,
       ${RECORD_TEXT_COLUMN}, d.message, d.job, d.run, d.session, d.cursor, d.conversation
     FROM recall_documents d WHERE d.id = ?`,
  ).get(id) as (DocumentRow & StoredBody) | undefined;
  if (!row) return undefined;
  const { conversation, recordText, ...doc } = row;
  doc.body = documentBody({ body: doc.body, recordText });
  return {
    id: doc.id,
    kind: doc.kind,
    agent: doc.agent,
    at: doc.at,
    // The search projection separates CJK characters for the tokenizer only (projection/cjk.ts).
    body: doc.body.replaceAll(CJK_SEPARATOR, ""),
    link: navigationLink({ ...doc, conversation }),
    message: doc.message,
    job: doc.job,
    run: doc.run,
    session: doc.session,
    cursor: doc.cursor,
  };
}
