import { BRIDGE_SOURCE } from "../../core/kinds.js";
import { BRIDGE_AGENT } from "./definition.js";
import type { DecisionRow, MessageRow, QuestionRow } from "../../bridge/read.js";
import { MAX_MESSAGE_BYTES, RUN_METADATA_KNOWN, type RunMetadata } from "../../bridge/records.js";
import { cutHeadToBytes } from "../../projection/utf8.js";
import { resolveProject } from "../../platform/project.js";
import type { ConversationRef, SourceRecord } from "../types.js";

export { BRIDGE_AGENT, BRIDGE_SOURCE };

/**
 * Bridge rows as source records. Hit ids and source keys (one document per key):
 * - a message, live, captured or cold: `message:<id>`, key `m:<id>`; one key whatever table
 *   it was read from, so a message moved from live to cold stays one hit;
 * - a question with its exact answer: `message:<questionId>`, key `q:<id>`;
 * - a decision revision: `decision:<topic>@<rev>`, key `d:<topic>@<rev>`;
 * - a run log chunk: `run:<basename>#<offset>`, key `r:<basename>#<offset>`; its metadata
 *   snapshot `run:<basename>#meta`.
 */

const text = (value: string) => ({
  type: "turn" as const,
  turn: {
    role: "assistant" as const,
    blocks: [{ type: "text" as const, text: value }],
    isCompactionSummary: false,
  },
});

/** Bodies are bounded by the bridge's accepted message size, whatever a writer stored. */
export const bounded = (s: string) => cutHeadToBytes(s, MAX_MESSAGE_BYTES);

function project(value: string | null | undefined): string | null {
  return value ? resolveProject(value) : null;
}

function messageConversation(
  conversation: string | null,
  peer: string,
  projectPath: string | null,
): ConversationRef {
  return {
    id: conversation ? `bridge:${conversation}` : `bridge:peer:${peer}`,
    source: BRIDGE_SOURCE,
    agent: BRIDGE_AGENT,
    kind: "message",
    project: projectPath,
    session: null,
    parent: null,
    title: conversation,
  };
}

function recipientsOf(row: MessageRow): string[] {
  try {
    const parsed = JSON.parse(row.recipients) as unknown;
    return Array.isArray(parsed)
      ? parsed.filter((r): r is string => typeof r === "string" && r.length > 0)
      : [];
  } catch {
    return [];
  }
}

const KINDS = new Set(["message", "approval", "progress", "report"]);

export function messageRecord(row: MessageRow): SourceRecord {
  const recipients = recipientsOf(row);
  const kind = KINDS.has(row.kind) ? (row.kind as "message") : "message";
  const header = `from ${row.sender} to ${recipients.join(", ")}`;
  return {
    sourceKey: `m:${row.id}`,
    hitId: `message:${row.id}`,
    conversation: messageConversation(row.conversation, row.sender, project(row.project)),
    at: row.createdAt,
    role: "assistant",
    kind,
    content: text(`${header}\n${bounded(row.body)}`),
    cursor: null,
    message: row.id,
    job: row.job,
    run: null,
    participants: [...new Set([row.sender, ...recipients])],
  };
}

export function questionRecord(row: QuestionRow): SourceRecord {
  const lines = [`question from ${row.asker}`, bounded(row.question)];
  if (row.answer !== null) lines.push(`answer by ${row.answeredBy ?? "owner"}`, bounded(row.answer));
  return {
    sourceKey: `q:${row.id}`,
    hitId: `message:${row.id}`,
    conversation: messageConversation(row.conversation, row.asker, project(row.project)),
    at: row.askedAt,
    role: "assistant",
    kind: "message",
    content: text(lines.join("\n")),
    cursor: null,
    message: row.id,
    job: row.job,
    run: null,
    participants: [...new Set([row.asker, ...(row.answeredBy ? [row.answeredBy] : [])])],
  };
}

export function decisionRecord(row: DecisionRow): SourceRecord {
  const lines = [`decision ${row.topic} revision ${row.rev} by ${row.decidedBy}`, bounded(row.decision)];
  if (row.rationale) lines.push(`rationale: ${bounded(row.rationale)}`);
  return {
    sourceKey: decisionRecordKey(row.topic, row.rev),
    hitId: `decision:${row.topic}@${row.rev}`,
    conversation: {
      id: decisionConversationId(row.topic),
      source: BRIDGE_SOURCE,
      agent: BRIDGE_AGENT,
      kind: "decision",
      project: project(row.project),
      session: null,
      parent: null,
      title: `decision ${row.topic}`,
    },
    at: row.decidedAt,
    role: "assistant",
    kind: "decision",
    content: text(lines.join("\n")),
    cursor: String(row.rev),
    message: null,
    job: row.job,
    run: null,
    participants: [row.decidedBy],
  };
}

/** What a run's records share: its conversation, job, start time and linked CLI session. */
export interface RunInfo {
  log: string;
  job: string;
  at: number;
  session: string | null;
  agent: string;
  project: string | null;
  title: string | null;
}

/** `agents`: the agent filter's own agents; a run naming another one is attributed to "other". */
export function runInfo(
  log: string,
  job: string,
  at: number,
  meta: RunMetadata | null,
  agents: ReadonlySet<string>,
): RunInfo {
  return {
    log,
    job: meta?.job ?? job,
    at,
    session: meta?.session ?? null,
    agent: meta?.agent && agents.has(meta.agent) ? meta.agent : BRIDGE_AGENT,
    project: project(meta?.project),
    title: meta?.title ?? null,
  };
}

/** The conversation of a run, by its log's basename. */
export const runConversationId = (log: string) => `run:${log}`;
/** The conversation of a decision topic, and the record key of one of its revisions. */
export const decisionConversationId = (topic: string) => `decision:${topic}`;
export const decisionRecordKey = (topic: string, rev: number) => `d:${topic}@${rev}`;

function runConversation(run: RunInfo): ConversationRef {
  return {
    id: runConversationId(run.log),
    source: BRIDGE_SOURCE,
    agent: run.agent,
    kind: "run",
    project: run.project,
    session: run.session,
    parent: null,
    title: run.title ?? `run ${run.log.replace(/\.log$/, "")}`,
  };
}

export function runChunkRecord(run: RunInfo, offset: number, chunk: string): SourceRecord {
  return {
    sourceKey: `r:${run.log}#${offset}`,
    hitId: `run:${run.log}#${offset}`,
    conversation: runConversation(run),
    at: run.at,
    role: "assistant",
    kind: "run",
    content: text(chunk),
    cursor: String(offset),
    message: null,
    job: run.job,
    run: run.log,
  };
}

/** Metadata bodies stay small: known fields as `key: value`, the rest as quoted JSON. */
const MAX_METADATA_TEXT = 16 * 1024;

export function runMetadataRecord(run: RunInfo, meta: RunMetadata): SourceRecord {
  const known = new Set<string>(RUN_METADATA_KNOWN);
  const lines = [`run ${run.log} metadata`];
  const unknown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (value === undefined) continue;
    if (known.has(key)) lines.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    else unknown[key] = value;
  }
  // Fields recall does not know stay searchable, written as the JSON they were.
  if (Object.keys(unknown).length > 0) lines.push(JSON.stringify(unknown));
  return {
    sourceKey: `r:${run.log}#meta`,
    hitId: `run:${run.log}#meta`,
    conversation: runConversation(run),
    at: run.at,
    role: "assistant",
    kind: "run",
    content: text(cutHeadToBytes(lines.join("\n"), MAX_METADATA_TEXT)),
    cursor: null,
    message: null,
    job: run.job,
    run: run.log,
  };
}
