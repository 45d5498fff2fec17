import { RecallError } from "../core/errors.js";
import { CJK_SEPARATOR } from "../projection/cjk.js";
import type { Queryable } from "../team/connect.js";
import {
  teamConversationOf,
  teamPositionOf,
  teamRecords,
  type TeamPosition,
  type TeamRecordRow,
} from "../team/documents.js";
import {
  GET_CONVERSATION_BUDGET_BYTES,
  RECORD_TEXT_MAX_BYTES,
  cutUtf8,
  recordBytes,
  type ConversationRecord,
  type ConversationWindow,
  type GetConversationOutput,
} from "./conversation-window.js";
import { ARCHIVAL_NOTICE } from "./definition.js";

/**
 * get_conversation with `scope: "team"`: a team conversation is the pushed documents of one
 * conversation id, in time order (the team store holds search text only, never conversation
 * records' read text). Same bounds as locally: `limit` records, 4 KiB each, a 32 KiB answer;
 * `after`, `before` and `around` as locally, with cursors of their own (a team cursor names a
 * record's time and hit id). Row-level security decides which conversations a member can open: one
 * of another team's project is NotFound, exactly like an unknown one.
 */

export interface TeamPageArgs {
  id: string;
  limit: number;
  after?: string;
  before?: string;
  around?: string;
}

const CURSOR = /^t([0-9]+):(.+)$/s;

function encodeTeamCursor(p: TeamPosition): string {
  return Buffer.from(`t${p.at}:${p.hitId}`).toString("base64url");
}

function decodeTeamCursor(cursor: string, field: "after" | "before"): TeamPosition {
  const match = CURSOR.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new RecallError("Validation", `${field}: not a team conversation cursor`);
  return { at: Number(match[1]), hitId: match[2]! };
}

function toRecord(row: TeamRecordRow): ConversationRecord {
  const { text, cut } = cutUtf8(row.body.replaceAll(CJK_SEPARATOR, ""), RECORD_TEXT_MAX_BYTES);
  return { id: row.hit_id, role: row.role, at: Number(row.at), kind: row.kind, text, truncated: cut };
}

const positionOf = (r: ConversationRecord): TeamPosition => ({ at: r.at, hitId: r.id });

async function resolve(db: Queryable, id: string): Promise<string> {
  const conversation = await teamConversationOf(db, id);
  if (!conversation)
    throw new RecallError(
      "NotFound",
      "no such team conversation (the id is neither a conversation nor a hit id)",
    );
  return conversation;
}

/** Records from `rows` while they fit `budget` bytes (never none). */
function fit(rows: readonly TeamRecordRow[], limit: number, budget: number): ConversationRecord[] {
  const records: ConversationRecord[] = [];
  let size = 0;
  for (const row of rows.slice(0, limit)) {
    const record = toRecord(row);
    const bytes = recordBytes(record);
    if (records.length > 0 && size + bytes > budget) break;
    records.push(record);
    size += bytes;
  }
  return records;
}

async function forwardPage(
  db: Queryable,
  conversation: string,
  from: TeamPosition | null,
  limit: number,
  budget: number,
): Promise<GetConversationOutput> {
  const rows = await teamRecords(db, conversation, from, "forward", limit + 1);
  const records = fit(rows, limit, budget - 256);
  const more = rows.length > records.length;
  const last = records.at(-1);
  return {
    records,
    next: more && last ? encodeTeamCursor(positionOf(last)) : null,
    notice: ARCHIVAL_NOTICE,
    archival_content: true,
  };
}

/** The newest records before `position` that fit (oldest first), and the cursor for older ones. */
async function pageBefore(
  db: Queryable,
  conversation: string,
  position: TeamPosition,
  limit: number,
  budget: number,
): Promise<{ records: ConversationRecord[]; prev: string | null }> {
  const rows = await teamRecords(db, conversation, position, "backward", limit + 1);
  const records = fit(rows, limit, budget).reverse();
  const more = rows.length > records.length;
  return { records, prev: more && records[0] ? encodeTeamCursor(positionOf(records[0])) : null };
}

export async function readTeamConversation(
  db: Queryable,
  args: TeamPageArgs,
): Promise<GetConversationOutput | ConversationWindow> {
  const conversation = await resolve(db, args.id);
  if (args.before !== undefined) {
    const { records, prev } = await pageBefore(
      db,
      conversation,
      decodeTeamCursor(args.before, "before"),
      args.limit,
      GET_CONVERSATION_BUDGET_BYTES - 512,
    );
    return { records, next: null, notice: ARCHIVAL_NOTICE, archival_content: true, prev };
  }
  if (args.around === undefined) {
    const from = args.after === undefined ? null : decodeTeamCursor(args.after, "after");
    return forwardPage(db, conversation, from, args.limit, GET_CONVERSATION_BUDGET_BYTES);
  }
  const position = await teamPositionOf(db, conversation, args.around);
  if (!position) throw new RecallError("NotFound", "around: the hit is not in this conversation");
  // As locally: up to half of `limit` before the hit within half the budget, the rest from the hit on.
  const previous = (await teamRecords(db, conversation, position, "backward", 1))[0];
  const olderLimit = Math.floor(args.limit / 2);
  const older =
    olderLimit > 0 && previous
      ? await pageBefore(db, conversation, position, olderLimit, GET_CONVERSATION_BUDGET_BYTES / 2)
      : { records: [], prev: previous ? encodeTeamCursor(position) : null };
  const olderBytes = older.records.reduce((n, r) => n + recordBytes(r), 0);
  const justBefore = older.records.at(-1) ?? (previous ? toRecord(previous) : undefined);
  const newer = await forwardPage(
    db,
    conversation,
    justBefore ? positionOf(justBefore) : null,
    args.limit - older.records.length,
    GET_CONVERSATION_BUDGET_BYTES - olderBytes - 512,
  );
  return {
    ...newer,
    records: [...older.records, ...newer.records],
    prev: older.prev,
    focus: args.around,
  };
}
