import path from "node:path";
import { opencodeEnv, opencodeHomes, opencodeUserPaths } from "../env.js";
import { prepareCleanHome } from "../home.js";
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

/**
 * A watcher for `opencode run --format json`: a tool call, or a second step (each step is one
 * model request), ends the run at once. opencode 1.18 has no turn limit flag; its agent's
 * `steps: 1` setting asks the model for text only, and this stops a CLI that goes on anyway.
 */
export function watchOpencodeEvents(): (line: string) => string | undefined {
  let steps = 0;
  return (line) => {
    if (!line.startsWith("{")) return undefined;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isRecord(event)) return undefined;
    if (event.type === "tool_use") return "tried to use a tool";
    if (event.type === "step_start" && ++steps > 1) return "started a second model step";
    return undefined;
  };
}

/** The clean HOME, config, data and state folders, with the user's auth.json linked into data. */
async function prepareOpencodeHome(ctx: ProviderContext): Promise<void> {
  const homes = opencodeHomes(ctx.scratch);
  await prepareCleanHome(
    [homes.home, homes.config, homes.data, homes.state],
    [{ from: opencodeUserPaths(ctx.env).authFile, to: path.join(homes.data, "opencode", "auth.json") }],
  );
}

/**
 * opencode has no usage-limits reader, and needs none here: a model its catalog prices at zero
 * for input and output cannot spend credits, so the zero-price rule is the availability check
 * (history-search-spec "Optional answers"). The catalog is read with the same clean
 * configuration as the run, so a model the user's own opencode.json adds or re-prices is neither
 * listed nor run.
 */
export const opencodeProvider: AnswerProvider = {
  name: "opencode",
  binary: "opencode",

  async probe(ctx: ProviderContext): Promise<Availability> {
    await prepareOpencodeHome(ctx);
    const result = await runProcess({
      command: ctx.command,
      // --pure: the same plugin-free catalog the run will see.
      args: ["models", "--verbose", "--pure"],
      cwd: ctx.cwd,
      env: opencodeEnv(ctx.env, ctx.scratch),
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
    await prepareOpencodeHome(ctx);
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
      env: opencodeEnv(ctx.env, ctx.scratch),
      signal: ctx.signal,
      stdin: prompt,
      timeoutMs: ctx.timeouts.generationMs,
      watch: watchOpencodeEvents(),
    });
    // Messages are predicates: answer.error puts the provider's name before them.
    if (result.stoppedBy) return { ok: false, error: result.stoppedBy };
    if (result.timedOut) return { ok: false, error: "timed out" };
    if (result.truncated) return { ok: false, error: "wrote more events than recall reads" };
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
      if (event.type === "error") return { ok: false, error: "reported an error" };
      if (event.type === "tool_use") return { ok: false, error: "tried to use a tool" };
      if (event.type === "text" && isRecord(event.part) && typeof event.part.text === "string") {
        texts.push(event.part.text);
      }
    }
    if (result.code !== 0) return { ok: false, error: describeExit(result, "failed") };
    return { ok: true, text: texts.join("\n\n") };
  },
};
