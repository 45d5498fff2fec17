import { randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * The bridge store's record types, one zod schema each: what the writer accepts and what the
 * CLI parses. Identities, topics and job names are restricted to characters that are safe in
 * hit ids, URLs and file names.
 */

/** The bridge's accepted message size: longer bodies are refused by the writer and cut by the reader. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Recipients of one message (a broadcast names each of them in its one row). */
export const MAX_RECIPIENTS = 256;

const utf8Bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** A peer identity (`claude-1`, `owner`, `codex@build`). */
export const Identity = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@:+-]{0,127}$/, "must be 1-128 letters, digits or . _ @ : + -");
/** A record id given by the caller (otherwise generated). */
export const RecordId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, "must be 1-128 letters, digits or . _ : -");
/** A decision topic: part of `decision:<topic>@<rev>` and of /api/decisions/<topic>/history. */
export const Topic = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "must be 1-128 letters, digits or . _ -");
/** A job name: the first part of a run log's `<job>-<UTC start>.log`. */
export const JobName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "must be 1-100 letters, digits or . _ -");
export const MessageKind = z.enum(["message", "approval", "progress", "report"]);
export type MessageKind = z.infer<typeof MessageKind>;
export const BindAgent = z.enum([
  "claude",
  "codex",
  "opencode",
  "gemini",
  "qwen",
  "copilot",
  "pi",
  "cline",
  "kilo",
  "continue",
  "other",
]);

const Text = (what: string) =>
  z
    .string()
    .refine((s) => s.trim().length > 0, `${what} must not be empty`)
    .refine((s) => utf8Bytes(s) <= MAX_MESSAGE_BYTES, `${what} is over ${MAX_MESSAGE_BYTES} bytes`);
const Time = z.number().int().positive();
const Optional = z.string().trim().min(1).max(1000).optional();

export const PostInput = z
  .object({
    id: RecordId.optional(),
    sender: Identity,
    recipients: z.array(Identity).min(1).max(MAX_RECIPIENTS),
    kind: MessageKind.default("message"),
    body: Text("body"),
    conversation: Optional,
    project: Optional,
    job: JobName.optional(),
    at: Time.optional(),
  })
  .strict();
export type PostInput = z.input<typeof PostInput>;

export const AskInput = z
  .object({
    id: RecordId.optional(),
    asker: Identity,
    question: Text("question"),
    conversation: Optional,
    project: Optional,
    job: JobName.optional(),
    at: Time.optional(),
  })
  .strict();
export type AskInput = z.input<typeof AskInput>;

export const AnswerInput = z
  .object({
    question: RecordId,
    answer: Text("answer"),
    by: Identity.default("owner"),
    at: Time.optional(),
  })
  .strict();
export type AnswerInput = z.input<typeof AnswerInput>;

export const DecideInput = z
  .object({
    topic: Topic,
    decision: Text("decision"),
    rationale: Text("rationale").optional(),
    by: Identity,
    project: Optional,
    job: JobName.optional(),
    at: Time.optional(),
  })
  .strict();
export type DecideInput = z.input<typeof DecideInput>;

export const BindInput = z
  .object({
    peer: Identity,
    agent: BindAgent.default("other"),
    session: z.string().trim().min(1).max(500),
    project: Optional,
    at: Time.optional(),
  })
  .strict();
export type BindInput = z.input<typeof BindInput>;

/**
 * A run's JSON metadata file. Known fields are typed; any other field is kept as it is (and
 * indexed as quoted JSON). A file that is not a JSON object, or whose known fields have the
 * wrong type, is malformed: the reader skips and counts it and never repairs it.
 */
export const RunMetadata = z
  .object({
    job: JobName.optional(),
    jobStartedAt: z.union([z.string(), z.number()]).optional(),
    jobFinishedAt: z.union([z.string(), z.number()]).nullable().optional(),
    status: z.string().max(200).optional(),
    exitCode: z.number().int().nullable().optional(),
    agent: z.string().max(200).optional(),
    model: z.string().max(200).optional(),
    /** The CLI session the run executed in: links its transcript to the job. */
    session: z.string().min(1).max(500).optional(),
    peer: z.string().max(200).optional(),
    project: z.string().max(1000).optional(),
    title: z.string().max(1000).optional(),
  })
  .catchall(z.unknown());
export type RunMetadata = z.infer<typeof RunMetadata>;
export const RUN_METADATA_KNOWN = [
  "job",
  "jobStartedAt",
  "jobFinishedAt",
  "status",
  "exitCode",
  "agent",
  "model",
  "session",
  "peer",
  "project",
  "title",
] as const;

export const RunInput = z
  .object({
    job: JobName,
    /** Run start (epoch ms); names the log file and becomes jobStartedAt. */
    at: Time.optional(),
    log: z.string().default(""),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type RunInput = z.input<typeof RunInput>;

/** `<prefix>-<time base36><random hex>`: sortable by creation, unique without coordination. */
export function newId(prefix: string, now: number): string {
  return `${prefix}-${now.toString(36)}${randomBytes(5).toString("hex")}`;
}
