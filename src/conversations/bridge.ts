import { existsSync } from "node:fs";
import { notFound, validationError } from "../core/errors.js";
import { decisionRevisions, hasTables, type DecisionRow } from "../bridge/read.js";
import { Topic } from "../bridge/records.js";
import { locateRun } from "../bridge/runs.js";
import { bridgePaths } from "../bridge/schema.js";
import { FileByteSource, READ_CHUNK_BYTES } from "../sources/files/byte-source.js";
import { utf8Cut } from "../sources/shared/utf8-cut.js";
import { decisionConversationId, decisionRecordKey, runConversationId } from "../sources/bridge/records.js";
import { openSourceDatabase, type Db } from "../store/open.js";
import { statement } from "../store/statements.js";
import { capChars } from "../projection/utf8.js";

/**
 * Read services behind the links bridge hits carry — /api/runs/<run>?from=<offset> and
 * /api/decisions/<topic>/history — reading the bridge store itself (read-only), not the index.
 * Inputs arrive from URLs: each is validated here (Validation), and a run is only ever looked
 * up by its basename inside runs/ or runs/archive/ (NotFound otherwise).
 */

export interface RunChunk {
  /** The run's `.log` basename. */
  run: string;
  job: string;
  archived: boolean;
  /** Byte offset the chunk starts at. */
  from: number;
  /** Offset of the following chunk, or null when this one reaches the end of the log. */
  next: number | null;
  /** The log's size when read. */
  size: number;
  text: string;
}

/**
 * One revision as the decision-history route returns it: the stored row, its hit id and time;
 * `truncated` when its decision or rationale was cut to DECISION_TEXT_MAX_CHARS.
 */
export type DecisionRevision = Omit<DecisionRow, "pos" | "decidedAt"> & {
  id: string;
  at: number;
  truncated?: true;
};

export interface DecisionHistory {
  topic: string;
  /** At most DECISION_HISTORY_PAGE revisions after `after`, oldest first. */
  revisions: DecisionRevision[];
  /** The `after` of the next page, or null when this one reaches the newest revision. */
  next: number | null;
}

/** Revisions per page of a topic's history, and characters kept of each decision and rationale. */
export const DECISION_HISTORY_PAGE = 50;
export const DECISION_TEXT_MAX_CHARS = 4000;

/** A byte offset from a URL (`?from=`): a decimal integer ≥ 0. */
function parseOffset(from: number | string): number {
  const value = typeof from === "number" ? from : /^\d{1,15}$/.test(from.trim()) ? Number(from.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < 0)
    throw validationError("from must be a byte offset (an integer ≥ 0)");
  return value;
}

/**
 * A bounded chunk (at most 64 KiB) of a run log from a byte offset. A chunk that does not reach
 * the end stops after its last complete line (or on a UTF-8 boundary for a longer line), and
 * `next` continues from there.
 */
export function readRunChunk(
  root: string,
  run: string,
  from: number | string = 0,
  /** Whether the run (by its .log basename) may be read: the HTTP route serves only indexed runs. */
  readable: (log: string) => boolean = () => true,
): RunChunk {
  const offset = parseOffset(from);
  const where = locateRun(root, run);
  // The same answer as for a run that never was: not even its size tells a forgotten one apart.
  if (!readable(where.name.log)) throw notFound(`run ${where.name.base} not found`);
  const source = new FileByteSource(where.log);
  try {
    if (offset > source.size) throw validationError(`from is past the end of the log (${source.size} bytes)`);
    let bytes = source.read(offset, READ_CHUNK_BYTES);
    const end = offset + bytes.length >= source.size;
    if (!end) {
      const newline = bytes.lastIndexOf(0x0a);
      bytes = bytes.subarray(0, newline >= 0 ? newline + 1 : utf8Cut(bytes));
    }
    const next = offset + bytes.length;
    return {
      run: where.name.log,
      job: where.name.job,
      archived: where.archived,
      from: offset,
      next: next >= source.size ? null : next,
      size: source.size,
      text: new TextDecoder().decode(bytes),
    };
  } finally {
    source.close();
  }
}

/**
 * A decision topic's revisions after revision `after` (0: from the first), oldest first, one
 * bounded page: at most DECISION_HISTORY_PAGE revisions, each text cut to
 * DECISION_TEXT_MAX_CHARS (a peer writes them, unbounded). Only revisions `visible` accepts
 * count (the HTTP route: those the index holds): pages are made of them alone, so neither an
 * empty page nor a short one shows that revisions were left out, and a topic with none is
 * NotFound like one that never was.
 */
export function decisionHistory(
  root: string,
  topic: string,
  after: number | string = 0,
  visible: (topic: string, rev: number) => boolean = () => true,
): DecisionHistory {
  const parsed = Topic.safeParse(topic);
  if (!parsed.success) throw validationError("topic must be 1-128 letters, digits or . _ -");
  const from = parseAfter(after);
  const file = bridgePaths(root).db;
  if (!existsSync(file)) throw notFound(`decision ${parsed.data} not found`);
  const db = openSourceDatabase(file);
  try {
    if (!hasTables(db, ["decisions"])) throw notFound(`decision ${parsed.data} not found`);
    const shown = (start: number, limit: number) => visibleRevisions(db, parsed.data, start, limit, visible);
    const rows = shown(from, DECISION_HISTORY_PAGE + 1);
    if (rows.length === 0 && (from === 0 || shown(0, 1).length === 0))
      throw notFound(`decision ${parsed.data} not found`);
    const page = rows.slice(0, DECISION_HISTORY_PAGE);
    const revisions = page.map(({ pos: _pos, decidedAt, ...row }): DecisionRevision => {
      const decision = cut(row.decision);
      const rationale = row.rationale === null ? null : cut(row.rationale);
      const truncated = decision !== row.decision || rationale !== row.rationale;
      return {
        id: `decision:${row.topic}@${row.rev}`,
        ...row,
        decision,
        rationale,
        at: decidedAt,
        ...(truncated ? { truncated: true as const } : {}),
      };
    });
    // The cursor is the last shown revision's own number: nothing the page does not already show.
    const next = rows.length > DECISION_HISTORY_PAGE ? page.at(-1)!.rev : null;
    return { topic: parsed.data, revisions, next };
  } finally {
    db.close();
  }
}

/**
 * Up to `limit` visible revisions after `afterRev`, read a page at a time: the filter runs before
 * the page is cut, however many hidden revisions lie between.
 */
function visibleRevisions(
  db: Db,
  topic: string,
  afterRev: number,
  limit: number,
  visible: (topic: string, rev: number) => boolean,
): DecisionRow[] {
  const out: DecisionRow[] = [];
  let cursor = afterRev;
  for (;;) {
    const batch = decisionRevisions(db, topic, cursor, DECISION_HISTORY_PAGE + 1);
    for (const row of batch) {
      if (visible(row.topic, row.rev)) out.push(row);
      if (out.length === limit) return out;
    }
    if (batch.length <= DECISION_HISTORY_PAGE) return out;
    cursor = batch.at(-1)!.rev;
  }
}

const HAS_RECORDS = `SELECT 1 FROM recall_records WHERE conversation = ? LIMIT 1`;
const HAS_RECORD = `SELECT 1 FROM recall_records WHERE conversation = ? AND record_key = ?`;

/**
 * Whether the index still holds a run (readRunChunk's `readable`): these reads go to the bridge
 * store itself, so a run `recall forget` removed (or one not indexed yet) must not be served.
 * Every record of a run carries the run's time, so a forget removes a run whole.
 */
export function runIndexed(index: Db): (log: string) => boolean {
  return (log) => statement(index, HAS_RECORDS).get(runConversationId(log)) !== undefined;
}

/**
 * Whether the index still holds a decision revision (decisionHistory's `visible`), as for runs:
 * a revision `recall forget` removed, or one not indexed yet, is left out of the history.
 */
export function decisionIndexed(index: Db): (topic: string, rev: number) => boolean {
  return (topic, rev) =>
    statement(index, HAS_RECORD).get(decisionConversationId(topic), decisionRecordKey(topic, rev)) !==
    undefined;
}

/** A revision cursor from a URL (`?after=`): a decimal integer ≥ 0. */
function parseAfter(after: number | string): number {
  const value =
    typeof after === "number" ? after : /^\d{1,15}$/.test(after.trim()) ? Number(after.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < 0)
    throw validationError("after must be a revision number (an integer ≥ 0)");
  return value;
}

const cut = (text: string) => capChars(text, DECISION_TEXT_MAX_CHARS);
