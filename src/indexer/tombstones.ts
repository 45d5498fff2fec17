import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import type { ConversationRef, RawChunk } from "../sources/types.js";

/**
 * What `recall forget` left behind so a later scan does not bring history back:
 * - `session` (value = a session id or a bridge identity): records of conversations whose session
 *   or id is it, and records it took part in, up to the time of the forget;
 * - `project` (value = a canonical project path): records of its conversations, up to then;
 * - `range` (since..until, inclusive): records whose time falls inside, whatever was forgotten.
 * Raw chunks follow their conversation (session, project) or their record times (range).
 */
export interface Tombstone {
  scope: "session" | "project" | "range";
  value: string | null;
  since: number | null;
  until: number | null;
  createdAt: number;
}

export interface Tombstones {
  readonly count: number;
  /** A session or project tombstone names this conversation (its new records may still pass). */
  conversation(ref: ConversationRef): boolean;
  /** A session tombstone names this session id. */
  session(id: string): boolean;
  /** A record to drop: its conversation is forgotten up to its time, or so is one of its participants. */
  record(ref: ConversationRef, at: number, participants?: readonly string[]): boolean;
  chunk(
    chunk: Pick<RawChunk, "firstAt" | "lastAt" | "conversation">,
    known: Map<string, { ref: ConversationRef }>,
    db: Db,
  ): boolean;
}

const LOAD = `SELECT scope, value, since, until, created_at AS createdAt FROM recall_tombstones`;
const CONVERSATION = `SELECT id, session, project FROM recall_conversations WHERE id = ?`;

export function loadTombstones(db: Db): Tombstones {
  const all = statement(db, LOAD).all() as Tombstone[];
  const sessions = new Map<string, number>();
  const projects = new Map<string, number>();
  const ranges: { since: number; until: number }[] = [];
  for (const t of all) {
    if (t.scope === "session" && t.value)
      sessions.set(t.value, Math.max(sessions.get(t.value) ?? 0, t.createdAt));
    else if (t.scope === "project" && t.value) {
      projects.set(t.value, Math.max(projects.get(t.value) ?? 0, t.createdAt));
    } else if (t.scope === "range") {
      ranges.push({ since: t.since ?? Number.MIN_SAFE_INTEGER, until: t.until ?? Number.MAX_SAFE_INTEGER });
    }
  }
  /** The time up to which this conversation is forgotten, or null. */
  const cutoff = (ref: { id: string; session: string | null; project: string | null }): number | null => {
    let at: number | null = null;
    for (const key of [ref.session, ref.id]) {
      const t = key ? sessions.get(key) : undefined;
      if (t !== undefined) at = Math.max(at ?? 0, t);
    }
    const p = ref.project ? projects.get(ref.project) : undefined;
    if (p !== undefined) at = Math.max(at ?? 0, p);
    return at;
  };
  const inRange = (at: number) => ranges.some((r) => at >= r.since && at <= r.until);
  return {
    count: all.length,
    conversation(ref) {
      return all.length > 0 && cutoff(ref) !== null;
    },
    session(id) {
      return sessions.has(id);
    },
    record(ref, at, participants) {
      if (all.length === 0) return false;
      const until = cutoff(ref);
      if ((until !== null && at <= until) || inRange(at)) return true;
      return (participants ?? []).some((p) => at <= (sessions.get(p) ?? Number.NEGATIVE_INFINITY));
    },
    chunk(chunk, known, db) {
      if (all.length === 0) return false;
      if (chunk.firstAt !== null && chunk.lastAt !== null) {
        if (ranges.some((r) => chunk.firstAt! <= r.until && chunk.lastAt! >= r.since)) return true;
      }
      if (!chunk.conversation || (sessions.size === 0 && projects.size === 0)) return false;
      const ref = known.get(chunk.conversation)?.ref ??
        (statement(db, CONVERSATION).get(chunk.conversation) as
          { id: string; session: string | null; project: string | null } | undefined) ?? {
          id: chunk.conversation,
          session: null,
          project: null,
        };
      const until = cutoff(ref);
      return until !== null && (chunk.firstAt === null || chunk.firstAt <= until);
    },
  };
}
