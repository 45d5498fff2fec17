import { loadConfig } from "../config/load.js";
import { recallHome } from "../platform/paths.js";
import type { HistoryAnswerConfig } from "../config/schema.js";
import { answerFromHits, type AnswerOptions } from "./answer.js";
import type { Env } from "./process.js";
import type { AnswerHit, HistoryAnswer } from "./types.js";

export { answerFromHits, NO_HITS_ANSWER, DEFAULT_PROVIDERS, type AnswerOptions } from "./answer.js";
export { HistoryAnswer, MAX_ANSWER_CHARS, MAX_PROMPT_SNIPPETS, type AnswerHit } from "./types.js";

/** What search_history calls when answer=true; `signal` aborts when the caller gives up. */
export type Answerer = (
  question: string,
  hits: readonly AnswerHit[],
  signal?: AbortSignal,
) => Promise<HistoryAnswer>;

/**
 * An answerer for a surface (MCP, HTTP, CLI): reads config.json's historyAnswer from RECALL_HOME
 * on each call, so an edited config applies without a restart, and finds providers and their
 * logins through `env` (their processes get only an allow-listed part of it).
 */
export function createAnswerer(
  options: { env?: Env; config?: () => HistoryAnswerConfig } & Omit<AnswerOptions, "config" | "env"> = {},
): Answerer {
  const env = options.env ?? process.env;
  const config = options.config ?? (() => loadConfig(recallHome(env)).historyAnswer);
  return (question, hits, signal) =>
    answerFromHits(question, hits, { ...options, env, config: config(), ...(signal ? { signal } : {}) });
}
