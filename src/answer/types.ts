import { z } from "zod";
import type { AnswerProviderName, HistoryAnswerConfig } from "../config/schema.js";
import type { HistoryHit } from "../search/history.js";
import type { Env } from "./process.js";

/** search_history's `answer` field, exactly as history-search-spec "Exact MCP contract" gives it. */
export const HistoryAnswer = z.object({
  /** At most MAX_ANSWER_CHARS; empty whenever error is set. */
  text: z.string(),
  agent: z.enum(["claude", "codex", "opencode"]).nullable(),
  model: z.string().nullable(),
  sources: z.array(z.object({ id: z.string(), link: z.string() })),
  error: z.string().optional(),
});
export type HistoryAnswer = z.infer<typeof HistoryAnswer>;

export const MAX_ANSWER_CHARS = 4000;
/** At most this many top hits go to a model; never the full corpus. */
export const MAX_PROMPT_SNIPPETS = 8;
/** Each excerpt in a prompt is cut to this many characters (the snippet bound of search_history). */
export const MAX_PROMPT_SNIPPET_CHARS = 320;

/** The generation budget, separate from the availability probes' own timeouts. */
export const GENERATION_TIMEOUT_MS = 60_000;
/** Each availability/usage probe (usage limits, model list, catalog). */
export const PROBE_TIMEOUT_MS = 15_000;

/**
 * The whole answer, probes and generation together: an MCP client gives up on a call after
 * 60 s by default, and the hits must reach it before then.
 */
export const ANSWER_DEADLINE_MS = 45_000;

export interface AnswerTimeouts {
  probeMs: number;
  generationMs: number;
  /** The whole answer (ANSWER_DEADLINE_MS). */
  totalMs: number;
}

/** The hit fields an answer needs: what was sent, and where its source can be read. */
export type AnswerHit = Pick<
  HistoryHit,
  "id" | "kind" | "agent" | "at" | "snippet" | "sourceLink" | "project"
>;

export interface ProviderContext {
  /** The provider's executable, as found on PATH. */
  command: string;
  /**
   * The caller's whole environment. Providers never pass it on: each builds its processes'
   * environment from an allow-list (./env.ts) and reads only login locations from it.
   */
  env: Env;
  /** The isolated, empty temporary working directory of this answer (removed afterwards). */
  cwd: string;
  /**
   * A private temporary folder beside `cwd`, outside the model's working root, for the clean
   * config homes, session database and output files of this answer's processes (removed afterwards).
   */
  scratch: string;
  config: HistoryAnswerConfig;
  timeouts: AnswerTimeouts;
  /** Aborts every process of this answer: the caller cancelled, or the answer deadline passed. */
  signal: AbortSignal;
}

/** Why a provider was passed over; `detail` never holds query text. */
export type Skip = {
  reason: "missing-binary" | "limits-exhausted" | "limits-unknown" | "probe-failed" | "model-unavailable";
  detail: string;
};

export type Availability = { ok: true; model: string } | ({ ok: false } & Skip);

export type RunOutcome = { ok: true; text: string } | { ok: false; error: string };

/**
 * One answer-writing CLI. `probe` reads usage limits and model availability and never runs a
 * model; `run` generates once with the model `probe` chose.
 */
export interface AnswerProvider {
  readonly name: AnswerProviderName;
  /** The executable looked up on PATH. */
  readonly binary: string;
  probe(ctx: ProviderContext): Promise<Availability>;
  run(ctx: ProviderContext, model: string, prompt: string): Promise<RunOutcome>;
}
