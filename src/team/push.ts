import type pg from "pg";
import { RecallError } from "../core/errors.js";
import type { Db } from "../store/open.js";
import { documentBody, RECORD_TEXT_COLUMN } from "../store/document-text.js";
import {
  forgetDocuments,
  upsertDocuments,
  type ForgetRule,
  type TeamDocument,
  type TeamFields,
} from "./documents.js";
import { tsvectorLiteral } from "./tsquery.js";

/**
 * `recall team push`: publishes this machine's new documents to the team store, incrementally.
 *
 * - A checkpoint per (member, machine) in the team store names the last local document row and
 *   the last local tombstone pushed. Each batch's upsert and the checkpoint's advance commit in
 *   one PostgreSQL transaction, so a push killed at any point resumes after the last committed
 *   batch, and a batch sent twice changes nothing (upserts keyed by hit id).
 * - Batches are bounded: at most `batch` local rows are scanned per transaction.
 * - Only the projected, redacted search text a local document already holds leaves the machine:
 *   never raw chunks, never conversation records' read text, never tool output previews (role
 *   `tool`), and nothing of a project in team.localOnly or not given to one of the member's teams
 *   (both filtered in the local SQL, before a row is read).
 * - `recall forget` writes tombstones locally; the push forwards each new one as a delete of the
 *   member's own rows it covers, which leaves a tombstone per hit in the team store.
 * Local rows changed in place after they were pushed (a conversation's later title) are not sent
 * again; `full: true` re-sends every row (idempotent).
 */

export interface PushOptions {
  machine: string;
  localOnly: readonly string[];
  /** Local rows scanned per batch (one PostgreSQL transaction each). */
  batch: number;
  /** Start from the first local row again (every row is upserted; nothing is duplicated). */
  full?: boolean;
  /** Called after each committed batch. */
  onBatch?: (progress: PushProgress) => void | Promise<void>;
}

export interface PushProgress {
  pushed: number;
  scanned: number;
  through: number;
  last: number;
}

export interface PushResult {
  machine: string;
  pushed: number;
  /** Local rows scanned but not pushed (tool output, local-only or unassigned projects). */
  withheld: number;
  forgotten: number;
  batches: number;
  /** The checkpoint now: the last local document row pushed or passed over. */
  through: number;
  ms: number;
}

export const PUSH_BATCH_DEFAULT = 1_000;
export const PUSH_BATCH_MAX = 10_000;

/** A window's row: the team fields, the local id, and the record text a body left empty stands for. */
type LocalRow = Omit<TeamFields, "body"> & { id: number; body: string; recordText: string | null };

/** The last id of the next window of `batch` local rows after `after` (null: none left). */
const WINDOW_END = `SELECT max(id) AS last FROM (SELECT id FROM recall_documents WHERE id > ? ORDER BY id LIMIT ?)`;

/** A window's pushable rows: projects the member may push, minus local-only ones, no tool output. */
const WINDOW_ROWS = `
SELECT d.id, d.hit_id AS hitId, d.kind, d.agent, d.at, d.project, d.session, d.job, d.run, d.message,
       d.conversation, d.cursor, d.role, d.title, d.body, ${RECORD_TEXT_COLUMN}, c.title AS conversationTitle
FROM recall_documents d
LEFT JOIN recall_conversations c ON c.id = d.conversation
WHERE d.id > ? AND d.id <= ? AND d.role <> 'tool'
  AND d.project IN (SELECT value FROM json_each(?))
ORDER BY d.id`;

function toTeamDocument(row: LocalRow): TeamDocument {
  const { id: _id, recordText, ...fields } = row;
  const body = documentBody({ body: row.body, recordText });
  return { ...fields, body, titleTsv: tsvectorLiteral(row.title), bodyTsv: tsvectorLiteral(body) };
}

interface Checkpoint {
  documents: number;
  tombstones: number;
}

async function readCheckpoint(client: pg.Client, machine: string): Promise<Checkpoint> {
  await client.query(
    `INSERT INTO recall_team_checkpoints (machine) VALUES ($1) ON CONFLICT (member, machine) DO NOTHING`,
    [machine],
  );
  const row = (
    await client.query<{ documents_through: string; tombstones_through: string }>(
      `SELECT documents_through, tombstones_through FROM recall_team_checkpoints
       WHERE member = current_user AND machine = $1`,
      [machine],
    )
  ).rows[0];
  return { documents: Number(row?.documents_through ?? 0), tombstones: Number(row?.tombstones_through ?? 0) };
}

/** The projects the member may push into (row-level security answers), minus local-only ones. */
async function pushableProjects(client: pg.Client, localOnly: readonly string[]): Promise<string[]> {
  const rows = (await client.query<{ project: string }>("SELECT project FROM recall_team_projects")).rows;
  const withheld = new Set(localOnly.flatMap((p) => [p, p.normalize("NFC"), p.normalize("NFD")]));
  return rows.map((r) => r.project).filter((p) => !withheld.has(p));
}

/** Forwards local tombstones newer than the checkpoint; returns the team rows deleted. */
async function pushTombstones(client: pg.Client, db: Db, machine: string, after: number): Promise<number> {
  const rules = db
    .prepare("SELECT id, scope, value, since, until FROM recall_tombstones WHERE id > ? ORDER BY id")
    .all(after) as (ForgetRule & { id: number })[];
  let forgotten = 0;
  for (const rule of rules) {
    await client.query("BEGIN");
    try {
      forgotten += await forgetDocuments(client, rule);
      await client.query(
        `UPDATE recall_team_checkpoints SET tombstones_through = $2, updated_at = now()
         WHERE member = current_user AND machine = $1`,
        [machine, rule.id],
      );
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  }
  return forgotten;
}

/** One batch: upsert and checkpoint in one transaction. */
async function pushWindow(
  client: pg.Client,
  machine: string,
  docs: readonly TeamDocument[],
  through: number,
): Promise<number> {
  await client.query("BEGIN");
  try {
    const written = await upsertDocuments(client, machine, docs);
    await client.query(
      `UPDATE recall_team_checkpoints SET documents_through = $2, pushed = pushed + $3, updated_at = now()
       WHERE member = current_user AND machine = $1`,
      [machine, through, written],
    );
    await client.query("COMMIT");
    return written;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Holds the push lock of (member, machine) for the push: two pushes of one machine never interleave. */
async function lockMachine(client: pg.Client, machine: string): Promise<void> {
  const got = (
    await client.query<{ ok: boolean }>(
      "SELECT pg_try_advisory_lock(hashtext(current_user || '/' || $1)) AS ok",
      [machine],
    )
  ).rows[0]?.ok;
  if (!got) throw new RecallError("Conflict", `a push of machine ${machine} is already running`);
}

export async function pushToTeam(client: pg.Client, db: Db, options: PushOptions): Promise<PushResult> {
  const started = performance.now();
  const { machine } = options;
  await lockMachine(client, machine);
  const checkpoint = await readCheckpoint(client, machine);
  const last =
    (db.prepare("SELECT max(id) AS last FROM recall_documents").get() as { last: number | null }).last ?? 0;
  // A local index built again from nothing numbers its rows from 1: start over (upserts dedupe).
  let through = options.full || checkpoint.documents > last ? 0 : checkpoint.documents;
  const result: PushResult = { machine, pushed: 0, withheld: 0, forgotten: 0, batches: 0, through, ms: 0 };
  result.forgotten = await pushTombstones(client, db, machine, checkpoint.tombstones);
  const projects = JSON.stringify(await pushableProjects(client, options.localOnly));
  const windowEnd = db.prepare(WINDOW_END);
  const windowRows = db.prepare(WINDOW_ROWS);
  const windowCount = db.prepare("SELECT count(*) AS n FROM recall_documents WHERE id > ? AND id <= ?");
  let scanned = 0;
  for (;;) {
    const end = (windowEnd.get(through, options.batch) as { last: number | null }).last;
    if (end === null) break;
    const rows = windowRows.all(through, end, projects) as LocalRow[];
    const startRow = through;
    result.pushed += await pushWindow(client, machine, rows.map(toTeamDocument), end);
    through = end;
    result.batches += 1;
    const inWindow = (windowCount.get(startRow, end) as { n: number }).n;
    scanned += inWindow;
    result.withheld += inWindow - rows.length;
    await options.onBatch?.({ pushed: result.pushed, scanned, through, last });
  }
  result.through = through;
  result.ms = Math.round(performance.now() - started);
  return result;
}
