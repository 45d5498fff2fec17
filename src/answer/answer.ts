import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AnswerProviderName, HistoryAnswerConfig } from "../config/schema.js";
import { checkCitations } from "./citations.js";
import type { Env } from "./process.js";
import { buildPrompt, promptHits } from "./prompt.js";
import { claudeProvider } from "./providers/claude.js";
import { codexProvider } from "./providers/codex.js";
import { opencodeProvider } from "./providers/opencode.js";
import { selectProvider } from "./select.js";
import {
  ANSWER_DEADLINE_MS,
  GENERATION_TIMEOUT_MS,
  MAX_ANSWER_CHARS,
  PROBE_TIMEOUT_MS,
  type AnswerHit,
  type AnswerProvider,
  type AnswerTimeouts,
  type HistoryAnswer,
} from "./types.js";

/** The fixed answer of an empty search: nothing is probed and no model runs. */
export const NO_HITS_ANSWER: HistoryAnswer = Object.freeze({
  text: "No indexed history matched this search, so there is nothing to answer from.",
  agent: null,
  model: null,
  sources: [],
});

export const DEFAULT_PROVIDERS: ReadonlyMap<AnswerProviderName, AnswerProvider> = new Map<
  AnswerProviderName,
  AnswerProvider
>([
  ["codex", codexProvider],
  ["claude", claudeProvider],
  ["opencode", opencodeProvider],
]);

export interface AnswerOptions {
  config: HistoryAnswerConfig;
  /**
   * The caller's environment: PATH finds the CLIs and their logins are located from it. Provider
   * processes never get it whole, only an allow-listed part (./env.ts).
   */
  env: Env;
  providers?: ReadonlyMap<AnswerProviderName, AnswerProvider>;
  timeouts?: Partial<AnswerTimeouts>;
  /** The caller gave up (an MCP cancellation, a closed HTTP request): every provider process ends. */
  signal?: AbortSignal;
}

/** Model-written ids in an error stay short: a few, each cut. */
function reportIds(ids: string[]): string {
  const shown = ids.slice(0, 5).map((id) => (id.length > 120 ? `${id.slice(0, 119)}…` : id));
  return ids.length > 5 ? `${shown.join(", ")} and ${ids.length - 5} more` : shown.join(", ");
}

/** Every C0 and C1 control character but newline and tab. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const stripControls = (text: string) => text.replace(CONTROLS, "");

/** Cuts at a word boundary so a bound never splits a citation in two. */
function bound(text: string): string {
  if (text.length <= MAX_ANSWER_CHARS) return text;
  const cut = text.slice(0, MAX_ANSWER_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_ANSWER_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * Answers `question` from the top hits of a search, or says why not. Errors never throw: they
 * come back as answer.error with empty text, and the hits that were sent stay listed as sources.
 */
export async function answerFromHits(
  question: string,
  hits: readonly AnswerHit[],
  options: AnswerOptions,
): Promise<HistoryAnswer> {
  if (hits.length === 0) return { ...NO_HITS_ANSWER, sources: [] };
  const sent = promptHits(hits);
  const sources = sent.map((h) => ({ id: h.id, link: h.sourceLink }));
  const failed = (error: string, agent: AnswerProviderName | null = null, model: string | null = null) => ({
    text: "",
    agent,
    model,
    sources,
    error,
  });
  const timeouts: AnswerTimeouts = {
    probeMs: options.timeouts?.probeMs ?? PROBE_TIMEOUT_MS,
    generationMs: options.timeouts?.generationMs ?? GENERATION_TIMEOUT_MS,
    totalMs: options.timeouts?.totalMs ?? ANSWER_DEADLINE_MS,
  };
  /** Why the answer stopped early, once the signal has aborted. */
  const stopped = () =>
    options.signal?.aborted
      ? "was cancelled by the caller"
      : `took longer than the ${Math.round(timeouts.totalMs / 1000)} s answer deadline`;
  if (options.signal?.aborted) return failed(`the answer ${stopped()}`);
  // The caller's signal or the deadline, wired by hand: Node 20 holds the signals
  // AbortSignal.any and AbortSignal.timeout return only weakly, so a garbage collection could
  // drop the abort that must kill a running model CLI.
  const stop = new AbortController();
  const signal = stop.signal;
  const deadline = setTimeout(() => stop.abort(), timeouts.totalMs);
  const cancel = () => stop.abort();
  options.signal?.addEventListener("abort", cancel, { once: true });
  // Probes and the run share one fresh, empty working directory: no project files, instructions
  // or config for a CLI to pick up. Beside it, outside the model's working root, a scratch folder
  // holds the CLIs' clean config homes and output files. Both go when the answer is done.
  const root = await mkdtemp(path.join(os.tmpdir(), "recall-answer-")).catch((error: unknown) => {
    clearTimeout(deadline);
    options.signal?.removeEventListener("abort", cancel);
    throw error;
  });
  const cwd = path.join(root, "work");
  const scratch = path.join(root, "scratch");
  try {
    await mkdir(cwd);
    await mkdir(scratch, { mode: 0o700 });
    const base = { env: options.env, cwd, scratch, config: options.config, timeouts, signal };
    const { selected, skipped } = await selectProvider(options.providers ?? DEFAULT_PROVIDERS, base);
    if (signal.aborted) return failed(`the answer ${stopped()}`);
    if (!selected) {
      const why = skipped.map((s) => `${s.provider}: ${s.detail}`).join("; ");
      return failed(`no answer provider has capacity (${why || "none configured"})`);
    }
    const { provider, command, model } = selected;
    let outcome;
    try {
      outcome = await provider.run({ ...base, command }, model, buildPrompt(question, sent));
    } catch (error) {
      outcome = { ok: false as const, error: (error as Error).message };
    }
    if (!outcome.ok) {
      // A run cut short by the signal says why; an answer that finished first is kept. Provider
      // errors are predicates ("tried to use a tool"): the provider's name is their one subject.
      const why = signal.aborted ? stopped() : outcome.error;
      return failed(`${provider.name} ${why}`, provider.name, model);
    }
    // Plain text, as returned: control characters (terminal escapes) out, then the bound, so
    // the citations checked are the ones the reader gets.
    const text = bound(stripControls(outcome.text).trim());
    if (!text) return failed("the model returned an empty answer", provider.name, model);
    const { cited, unknown } = checkCitations(
      text,
      sources.map((s) => s.id),
    );
    if (unknown.length > 0) {
      // The fabricated ids are named here and appear nowhere else; the text is dropped.
      return failed(
        `the answer cited ids that were not among the sources and was removed: ${reportIds(unknown)}`,
        provider.name,
        model,
      );
    }
    if (cited.length === 0) return failed("the answer cited no source", provider.name, model);
    const citedSources = cited.map((id) => sources.find((s) => s.id === id)!);
    return { text, agent: provider.name, model, sources: citedSources };
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener("abort", cancel);
    await rm(root, { recursive: true, force: true });
  }
}
