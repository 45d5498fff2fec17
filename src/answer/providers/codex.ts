import { readFile } from "node:fs/promises";
import path from "node:path";
import { codexAuthFile, codexEnv, codexHomes } from "../env.js";
import { prepareCleanHome } from "../home.js";
import { jsonLineSession, runProcess } from "../process.js";
import type { AnswerProvider, Availability, ProviderContext, RunOutcome } from "../types.js";
import { describeExit, isRecord } from "./common.js";

/**
 * Config overrides that take the model's tools away. Codex has no "no tools" switch: its shell
 * (shell_tool, unified_exec), the JavaScript exec of code mode, sub-agents (multi_agent:
 * spawn_agent and friends), apps and plugins (tool_suggest), image generation, memories, goals,
 * sleep and permission requests are features, turned off here; web search is its own setting.
 * Feature keys as in codex-rs/features. They go through `-c features.<key>=false`, whose unknown
 * keys Codex only warns about, so a release that renames one still starts (`--disable` is not
 * relied on to be as lenient). Project AGENTS.md files are read as zero bytes.
 * What remains built in (update_plan, request_user_input, apply_patch, view_image) cannot be
 * configured away, so the run is also watched and stopped at the first tool call.
 */
export const CODEX_DISABLED_FEATURES = [
  "shell_tool",
  "unified_exec",
  "code_mode",
  "code_mode_only",
  "multi_agent",
  "multi_agent_v2",
  "enable_fanout",
  "apps",
  "plugins",
  "tool_suggest",
  "image_generation",
  "standalone_web_search",
  "request_permissions_tool",
  "memories",
  "goals",
  "sleep_tool",
  "hooks",
  "child_agents_md",
];

export const CODEX_NO_TOOLS = [
  "-c",
  'approval_policy="never"',
  "-c",
  'web_search="disabled"',
  "-c",
  "project_doc_max_bytes=0",
  ...CODEX_DISABLED_FEATURES.flatMap((feature) => ["-c", `features.${feature}=false`]),
];

/** `codex exec --json` items that are the model's own words; any other item is a tool call. */
const MODEL_ITEMS = new Set(["agent_message", "reasoning", "error"]);

/**
 * A watcher for `codex exec --json`: the first tool call, a request for user input or a second
 * turn ends the run before the tool's result can go back to the model. Codex has no turn limit
 * of its own; without tools one turn is one model request.
 */
export function watchCodexEvents(): (line: string) => string | undefined {
  let turns = 0;
  return (line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isRecord(event) || typeof event.type !== "string") return undefined;
    if (event.type === "turn.started" && ++turns > 1) return "started a second turn";
    if (event.type === "request_user_input") return "tried to use a tool (request_user_input)";
    if (event.type.startsWith("item.") && isRecord(event.item) && typeof event.item.type === "string") {
      const type = event.item.type;
      if (!MODEL_ITEMS.has(type)) {
        // The type names the tool kind; it is the CLI's word, not the model's, but kept short.
        return /^[a-z_]{1,40}$/.test(type) ? `tried to use a tool (${type})` : "tried to use a tool";
      }
    }
    return undefined;
  };
}

/** The clean CODEX_HOME (a link to the user's auth.json, nothing else) and HOME of this answer. */
async function prepareCodexHome(ctx: ProviderContext): Promise<void> {
  const { home, codexHome } = codexHomes(ctx.scratch);
  await prepareCleanHome(
    [home, codexHome],
    [{ from: codexAuthFile(ctx.env), to: path.join(codexHome, "auth.json") }],
  );
}

/** Pages of `model/list` read before giving up; the catalog is a few dozen models. */
const MAX_MODEL_PAGES = 5;

type Usage = { state: "ok" } | { state: "exhausted" | "unknown"; detail: string };

function snapshotExhausted(snapshot: unknown): boolean {
  if (!isRecord(snapshot)) return false;
  if (snapshot.rateLimitReachedType !== null && snapshot.rateLimitReachedType !== undefined) return true;
  return [snapshot.primary, snapshot.secondary].some(
    (w) => isRecord(w) && typeof w.usedPercent === "number" && w.usedPercent >= 100,
  );
}

function snapshotHasWindow(snapshot: unknown): boolean {
  return (
    isRecord(snapshot) &&
    [snapshot.primary, snapshot.secondary].some((w) => isRecord(w) && typeof w.usedPercent === "number")
  );
}

/**
 * Reads `account/rateLimits/read`. Exhausted windows or a reached limit skip Codex even when
 * credits remain, so an answer never moves onto paid credits; no readable window is unknown.
 */
export function readCodexUsage(result: unknown, model: string): Usage {
  if (!isRecord(result) || !isRecord(result.rateLimits))
    return { state: "unknown", detail: "no rate limits" };
  const buckets: unknown[] = [result.rateLimits];
  if (isRecord(result.rateLimitsByLimitId)) {
    for (const bucket of Object.values(result.rateLimitsByLimitId)) {
      // Model-scoped buckets only matter for the model that would run.
      if (isRecord(bucket) && (bucket.normalModelSlug ?? null) !== null && bucket.normalModelSlug !== model)
        continue;
      buckets.push(bucket);
    }
  }
  if (result.ordinaryUsageAllowed === false) {
    return { state: "exhausted", detail: "codex reports ordinary included usage is not allowed" };
  }
  if (buckets.some(snapshotExhausted))
    return { state: "exhausted", detail: "a codex usage limit is reached" };
  if (result.ordinaryUsageAllowed === true || buckets.some(snapshotHasWindow)) return { state: "ok" };
  return { state: "unknown", detail: "codex reported no usage window" };
}

function response(lines: unknown[], id: number): Record<string, unknown> | undefined {
  const line = lines.find((l) => isRecord(l) && l.id === id && ("result" in l || "error" in l));
  return line as Record<string, unknown> | undefined;
}

export const codexProvider: AnswerProvider = {
  name: "codex",
  binary: "codex",

  async probe(ctx: ProviderContext): Promise<Availability> {
    const model = ctx.config.codexModel;
    // One app-server session answers both questions: usage limits, then the model list.
    const models: string[] = [];
    let nextId = 3;
    let listDone = false;
    await prepareCodexHome(ctx);
    const session = await jsonLineSession({
      command: ctx.command,
      args: ["app-server"],
      cwd: ctx.cwd,
      // The same clean home as the run: the limits read are those of the login the run will use.
      env: codexEnv(ctx.env, ctx.scratch),
      signal: ctx.signal,
      timeoutMs: ctx.timeouts.probeMs,
      messages: [
        { id: 1, method: "initialize", params: { clientInfo: { name: "recall", version: "0.1.0" } } },
        { method: "initialized" },
        { id: 2, method: "account/rateLimits/read" },
        { id: nextId, method: "model/list", params: {} },
      ],
      onLine(line) {
        if (!isRecord(line) || line.id !== nextId) return;
        const result = line.result;
        if (!isRecord(result) || !Array.isArray(result.data)) {
          listDone = true;
          return;
        }
        for (const m of result.data) if (isRecord(m) && typeof m.model === "string") models.push(m.model);
        const cursor = typeof result.nextCursor === "string" ? result.nextCursor : null;
        if (cursor === null || nextId - 2 >= MAX_MODEL_PAGES) {
          listDone = true;
          return;
        }
        nextId += 1;
        return [{ id: nextId, method: "model/list", params: { cursor } }];
      },
      done: (lines) => listDone && response(lines, 2) !== undefined,
    });
    const limits = response(session.lines, 2);
    if (!limits) {
      const why = session.timedOut ? "timed out" : (session.error ?? `exited with ${session.code}`);
      return { ok: false, reason: "probe-failed", detail: `codex usage probe ${why}` };
    }
    if ("error" in limits) {
      // Typically "authentication required": nothing says what an answer would be billed to.
      return { ok: false, reason: "limits-unknown", detail: "codex could not read its rate limits" };
    }
    const usage = readCodexUsage(limits.result, model);
    if (usage.state === "exhausted") return { ok: false, reason: "limits-exhausted", detail: usage.detail };
    if (usage.state === "unknown") return { ok: false, reason: "limits-unknown", detail: usage.detail };
    if (!listDone) return { ok: false, reason: "probe-failed", detail: "codex model list was not read" };
    if (!models.includes(model)) {
      return { ok: false, reason: "model-unavailable", detail: `codex does not list model ${model}` };
    }
    return { ok: true, model };
  },

  async run(ctx: ProviderContext, model: string, prompt: string): Promise<RunOutcome> {
    await prepareCodexHome(ctx);
    const lastMessage = path.join(ctx.scratch, "codex-last-message.txt");
    const result = await runProcess({
      command: ctx.command,
      args: [
        "exec",
        // No config.toml is read (the clean CODEX_HOME holds none either); auth comes from CODEX_HOME.
        "--ignore-user-config",
        "--ignore-rules",
        "--sandbox",
        "read-only",
        ...CODEX_NO_TOOLS,
        "--skip-git-repo-check",
        "--ephemeral",
        // The event stream, watched below for tool calls and further turns.
        "--json",
        "--model",
        model,
        "--color",
        "never",
        "--cd",
        ctx.cwd,
        "--output-last-message",
        lastMessage,
        // The prompt comes on stdin.
        "-",
      ],
      cwd: ctx.cwd,
      env: codexEnv(ctx.env, ctx.scratch),
      signal: ctx.signal,
      stdin: prompt,
      timeoutMs: ctx.timeouts.generationMs,
      watch: watchCodexEvents(),
    });
    if (result.stoppedBy) return { ok: false, error: result.stoppedBy };
    if (result.timedOut) return { ok: false, error: "timed out" };
    if (result.code !== 0) return { ok: false, error: describeExit(result, "failed") };
    // Events past the bound were not seen, so nothing says they held no tool call.
    if (result.truncated) return { ok: false, error: "wrote more events than recall reads" };
    let text: string;
    try {
      text = await readFile(lastMessage, "utf8");
    } catch {
      return { ok: false, error: describeExit(result, "wrote no last message") };
    }
    return { ok: true, text };
  },
};
