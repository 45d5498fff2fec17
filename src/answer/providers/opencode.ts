import path from "node:path";
import { runProcess } from "../process.js";
import type { AnswerProvider, Availability, ProviderContext, RunOutcome } from "../types.js";
import { describeExit, isRecord } from "./common.js";

export interface CatalogModel {
  id: string;
  inputPrice: number | null;
  outputPrice: number | null;
  status: string | null;
}

/**
 * `opencode models --verbose` prints, per model, a `provider/model` line followed by its JSON
 * metadata (cost per million tokens among it). Anything that does not parse is left out.
 */
export function parseVerboseCatalog(text: string): CatalogModel[] {
  const models: CatalogModel[] = [];
  for (const match of text.matchAll(/^(\S+\/\S+)\n(\{[\s\S]*?\n\})$/gm)) {
    let meta: unknown;
    try {
      meta = JSON.parse(match[2] ?? "");
    } catch {
      continue;
    }
    const cost = isRecord(meta) && isRecord(meta.cost) ? meta.cost : {};
    models.push({
      id: match[1] ?? "",
      inputPrice: typeof cost.input === "number" ? cost.input : null,
      outputPrice: typeof cost.output === "number" ? cost.output : null,
      status: isRecord(meta) && typeof meta.status === "string" ? meta.status : null,
    });
  }
  return models;
}

/** Free means the catalog says so in numbers; a "-free" suffix or a name proves nothing. */
export function isZeroPriced(model: CatalogModel): boolean {
  return model.inputPrice === 0 && model.outputPrice === 0 && model.status !== "deprecated";
}

/** The configured model if the catalog prices it at zero; with null, the first zero-priced one. */
export function chooseOpencodeModel(
  catalog: CatalogModel[],
  configured: string | null,
): { ok: true; model: string } | { ok: false; detail: string } {
  if (configured === null) {
    const free = catalog.find(isZeroPriced);
    return free
      ? { ok: true, model: free.id }
      : { ok: false, detail: "no zero-priced model in the opencode catalog" };
  }
  const entry = catalog.find((m) => m.id === configured);
  if (!entry) return { ok: false, detail: `opencode does not list model ${configured}` };
  if (!isZeroPriced(entry))
    return { ok: false, detail: `opencode's catalog does not price ${configured} at zero` };
  return { ok: true, model: configured };
}

export type UsageReading = { state: "ok" } | { state: "exhausted" | "unknown" | "failed"; detail: string };

/**
 * opencode (checked up to 1.18.33) has no command or API that reports usage limits before a
 * request: a free-tier limit surfaces only as a failed generation. Its availability is therefore
 * unknown and selection skips it, as history-search-spec requires.
 */
export async function opencodeUsageUnknown(): Promise<UsageReading> {
  return { state: "unknown", detail: "opencode offers no usage-limits reader" };
}

/** Settings for the run: every tool and permission denied; plugins stay off through --pure. */
export const OPENCODE_RUN_ENV = {
  OPENCODE_CONFIG_CONTENT: JSON.stringify({
    tools: { "*": false },
    permission: { "*": "deny" },
    share: "disabled",
  }),
  OPENCODE_PERMISSION: JSON.stringify({ "*": "deny" }),
  OPENCODE_DISABLE_PROJECT_CONFIG: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
};

export function createOpencodeProvider(
  readUsage: (ctx: ProviderContext) => Promise<UsageReading> = opencodeUsageUnknown,
): AnswerProvider {
  return {
    name: "opencode",
    binary: "opencode",

    async probe(ctx: ProviderContext): Promise<Availability> {
      const usage = await readUsage(ctx);
      if (usage.state === "exhausted") return { ok: false, reason: "limits-exhausted", detail: usage.detail };
      if (usage.state === "unknown") return { ok: false, reason: "limits-unknown", detail: usage.detail };
      if (usage.state === "failed") return { ok: false, reason: "probe-failed", detail: usage.detail };
      const result = await runProcess({
        command: ctx.command,
        // --pure: the same plugin-free catalog the run will see.
        args: ["models", "--verbose", "--pure"],
        cwd: ctx.cwd,
        env: ctx.env,
        signal: ctx.signal,
        timeoutMs: ctx.timeouts.probeMs,
      });
      if (result.timedOut)
        return { ok: false, reason: "probe-failed", detail: "opencode catalog probe timed out" };
      if (result.code !== 0) {
        return {
          ok: false,
          reason: "probe-failed",
          detail: describeExit(result, "opencode catalog probe failed"),
        };
      }
      const choice = chooseOpencodeModel(parseVerboseCatalog(result.stdout), ctx.config.opencodeModel);
      if (!choice.ok) return { ok: false, reason: "model-unavailable", detail: choice.detail };
      return { ok: true, model: choice.model };
    },

    async run(ctx: ProviderContext, model: string, prompt: string): Promise<RunOutcome> {
      const result = await runProcess({
        command: ctx.command,
        // A fixed --title: otherwise opencode asks a second, "small" model to write one.
        args: [
          "run",
          "--pure",
          "--model",
          model,
          "--format",
          "json",
          "--title",
          "recall answer",
          "--dir",
          ctx.cwd,
        ],
        cwd: ctx.cwd,
        // Its own throwaway session database: the answer's session must not land in the user's
        // opencode history, where recall would index its own output.
        env: { ...ctx.env, ...OPENCODE_RUN_ENV, OPENCODE_DB: path.join(ctx.cwd, "opencode-answer.db") },
        signal: ctx.signal,
        stdin: prompt,
        timeoutMs: ctx.timeouts.generationMs,
      });
      if (result.timedOut) return { ok: false, error: "timed out" };
      const texts: string[] = [];
      for (const raw of result.stdout.split("\n")) {
        if (!raw.startsWith("{")) continue;
        let event: unknown;
        try {
          event = JSON.parse(raw);
        } catch {
          continue;
        }
        if (!isRecord(event)) continue;
        if (event.type === "error") return { ok: false, error: "opencode reported an error" };
        if (event.type === "tool_use") return { ok: false, error: "opencode tried to use a tool" };
        if (event.type === "text" && isRecord(event.part) && typeof event.part.text === "string") {
          texts.push(event.part.text);
        }
      }
      if (result.code !== 0) return { ok: false, error: describeExit(result, "failed") };
      return { ok: true, text: texts.join("\n\n") };
    },
  };
}

export const opencodeProvider = createOpencodeProvider();
