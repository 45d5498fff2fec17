import type { Db } from "./open.js";
import { pluckedStatement } from "./statements.js";

/**
 * Hit ids are not stored where the row's own columns give them (schema v13, issue #32). A
 * transcript's hit id is `transcript:<agent>:<session>:<key>` over its conversation
 * `<agent>:<session>` (sources/ids.ts), its document key either that `<key>` (Claude Code,
 * opencode) or `<session>:<key>` (Codex and most others, so keys stay unique per source); an app
 * chat's is `<conversation>:<messageId>`. Holding them verbatim cost each of documents and records
 * about 90 bytes a row, plus a unique index on them: 237 of 1,774 MiB at 1M Zipf messages. So
 * `hit_id` is a virtual generated column over `own_hit_id`, which holds an id only where the rule
 * below would not give it (the agent bridge's ids, a document without a conversation). A record
 * without a hit stores '' there.
 *
 * The rule is part of the schema (the generated columns' expression): never change it, or stored
 * NULLs would name other hits. Writers store an id whenever the rule gives another, so the rule
 * needs only to be a function of the row: a key that merely looks session-qualified is safe.
 */

/** What follows a conversation's agent: `<agent>:<session>` gives `<session>` (all of it without ':'). */
const sessionOf = (conversation: string): string => conversation.slice(conversation.indexOf(":") + 1);

/** The hit id a row of this kind, conversation and key has when it stores none. */
function derivedHitId(kind: string, conversation: string | null, key: string): string | null {
  if (conversation === null) return null;
  if (kind !== "transcript") return `${conversation}:${key}`;
  const head = `${sessionOf(conversation)}:`;
  return `transcript:${conversation}:${key.startsWith(head) ? key.slice(head.length) : key}`;
}

/**
 * The same in SQL, over the row's key column `k` and its `kind` and `conversation` (columns, or
 * other expressions giving them: the records view's, which joins the conversation's id in).
 */
export const derivedHitSql = (k: string, conversation = "conversation", kind = "kind"): string => {
  const session = `substr(${conversation}, instr(${conversation}, ':') + 1)`;
  const key = `(CASE WHEN substr(${k}, 1, length(${session}) + 1) = ${session} || ':' THEN substr(${k}, length(${session}) + 2) ELSE ${k} END)`;
  return `(CASE WHEN ${kind} = 'transcript' THEN 'transcript:' || ${conversation} || ':' || ${key} ELSE ${conversation} || ':' || ${k} END)`;
};

/**
 * The generated `hit_id` column of recall_documents (key: source_key) and of recall_records (key:
 * record_key) as schema 13 made them; from schema 14 the records view computes the same.
 */
export const DOCUMENT_HIT_COLUMN = `hit_id TEXT GENERATED ALWAYS AS (coalesce(own_hit_id, ${derivedHitSql("source_key")})) VIRTUAL`;
export const RECORD_HIT_COLUMN = `hit_id TEXT GENERATED ALWAYS AS (CASE WHEN own_hit_id IS NULL THEN ${derivedHitSql("record_key")} ELSE nullif(own_hit_id, '') END) VIRTUAL`;

/** What a document stores as its own hit id: null when derivable. */
export function documentOwnHitId(
  kind: string,
  conversation: string | null,
  key: string,
  hitId: string,
): string | null {
  return derivedHitId(kind, conversation, key) === hitId ? null : hitId;
}

/** What a record stores as its own hit id: null when derivable, '' when it has no hit. */
export function recordOwnHitId(
  kind: string,
  conversation: string,
  key: string,
  hitId: string | null,
): string | null {
  if (hitId === null) return "";
  return derivedHitId(kind, conversation, key) === hitId ? null : hitId;
}

interface Derivation {
  conversation: string;
  key: string;
}

/**
 * Every (conversation, key) a hit id could derive from: the rule is not reversible alone
 * (conversations and keys may hold ':', and a key may carry the session), so a lookup tries each;
 * each is one index probe, and the row's generated hit_id has the last word.
 */
function hitDerivations(hitId: string): Derivation[] {
  const out: Derivation[] = [];
  const splits = (rest: string, transcript: boolean) => {
    for (let i = rest.indexOf(":"); i > 0; i = rest.indexOf(":", i + 1)) {
      const conversation = rest.slice(0, i);
      const key = rest.slice(i + 1);
      out.push({ conversation, key });
      if (transcript) out.push({ conversation, key: `${sessionOf(conversation)}:${key}` });
    }
  };
  if (hitId.startsWith("transcript:")) splits(hitId.slice("transcript:".length), true);
  splits(hitId, false);
  return out;
}

/** The keys a record of `conversation` could derive this hit id from. */
function recordKeysOfHit(conversation: string, hitId: string): string[] {
  const keys: string[] = [];
  const transcript = `transcript:${conversation}:`;
  if (hitId.startsWith(transcript)) {
    const key = hitId.slice(transcript.length);
    keys.push(key, `${sessionOf(conversation)}:${key}`);
  }
  if (hitId.startsWith(`${conversation}:`)) keys.push(hitId.slice(conversation.length + 1));
  return keys;
}

/**
 * The document with this hit id, or undefined: by its stored id (a partial index holds those),
 * else by each (conversation, key) the id could derive from (the conversation index holds the
 * key too). On an index from before v13, hit_id is stored and indexed: one probe.
 */
export function documentIdOfHit(db: Db, hitId: string): number | undefined {
  if (!hitIdsDerived(db))
    return pluckedStatement(db, "SELECT id FROM recall_documents WHERE hit_id = ?").get(hitId) as
      number | undefined;
  const own = pluckedStatement(db, "SELECT id FROM recall_documents WHERE own_hit_id = ?").get(hitId) as
    number | undefined;
  if (own !== undefined) return own;
  const derived = pluckedStatement(
    db,
    `SELECT id FROM recall_documents WHERE conversation = ? AND source_key = ? AND own_hit_id IS NULL
       AND hit_id = ?`,
  );
  for (const d of hitDerivations(hitId)) {
    const id = derived.get(d.conversation, d.key, hitId) as number | undefined;
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The record of `conversation` with this hit id, or undefined. */
export function recordIdOfHit(db: Db, conversation: string, hitId: string): number | undefined {
  if (!hitIdsDerived(db))
    return pluckedStatement(db, "SELECT id FROM recall_records WHERE conversation = ? AND hit_id = ?").get(
      conversation,
      hitId,
    ) as number | undefined;
  const derived = pluckedStatement(
    db,
    `SELECT id FROM recall_records WHERE conversation = ? AND record_key = ? AND own_hit_id IS NULL
       AND hit_id = ?`,
  );
  for (const key of recordKeysOfHit(conversation, hitId)) {
    const id = derived.get(conversation, key, hitId) as number | undefined;
    if (id !== undefined) return id;
  }
  // Stored ids (the agent bridge's) are few per conversation: its records are read in order.
  return pluckedStatement(db, "SELECT id FROM recall_records WHERE conversation = ? AND own_hit_id = ?").get(
    conversation,
    hitId,
  ) as number | undefined;
}

const derivedOn = new WeakSet<Db>();

/**
 * Whether this database's documents derive their hit ids (schema v13; an embedded index's v7). A
 * reader may open an index a writer has not migrated yet; only the answer yes is kept, as the
 * migration may come later on the same connection.
 */
export function hitIdsDerived(db: Db): boolean {
  if (derivedOn.has(db)) return true;
  const derived =
    db.prepare("SELECT 1 FROM pragma_table_info('recall_documents') WHERE name = 'own_hit_id'").get() !==
    undefined;
  if (derived) derivedOn.add(db);
  return derived;
}
