import { realpathSync } from "node:fs";
import { claudeEnv, claudeProjectDirs } from "../env.js";
import { removingNewDirs } from "../home.js";
import { jsonLineSession, runProcess } from "../process.js";
import type { AnswerProvider, Availability, ProviderContext, RunOutcome } from "../types.js";
import { describeExit, isRecord } from "./common.js";

/**
 * Flags shared by the probe and the run: no built-in tools, no MCP servers but those given (none),
 * no user/project/local settings (hooks, plugins, permissions and CLAUDE.md live there), hooks and
 * auto memory off outright, and no session file. Auth is unaffected: it lives in Claude's
 * credentials store, not in settings.
 */
export const CLAUDE_ISOLATION = [
  "--tools",
  "",
  "--strict-mcp-config",
  "--setting-sources",
  "",
  "--settings",
  '{"disableAllHooks":true,"autoMemoryEnabled":false}',
  "--no-session-persistence",
];

/**
 * One model turn: with no tools a model that still asks for one would otherwise be answered
 * "no such tool" and asked again until the deadline. Claude ends the run as error_max_turns.
 * (A print-mode flag that `claude --help` does not list.)
 */
export const CLAUDE_ONE_TURN = ["--max-turns", "1"];

/**
 * Runs one Claude process and removes the `projects/<cwd>/` folder it makes for the answer's
 * working directory (auto memory's empty `memory/` among it) when that folder is new: the CLI has
 * no switch that keeps it from appearing.
 */
async function withoutTraces<T>(ctx: ProviderContext, work: () => Promise<T>): Promise<T> {
  const cwds = [ctx.cwd];
  try {
    cwds.push(realpathSync(ctx.cwd));
  } catch {
    // the folder is the answer's own; if it cannot be resolved the given path is the one used
  }
  return removingNewDirs(claudeProjectDirs(ctx.env, cwds), work);
}

/** Plan windows of Claude's structured /usage (the `get_usage` control request). */
const WINDOWS = ["five_hour", "seven_day", "seven_day_oauth_apps", "seven_day_opus", "seven_day_sonnet"];

type Usage = { state: "ok" } | { state: "exhausted" | "unknown"; detail: string };

/** Reads the get_usage response: usage is known only with plan windows that carry numbers. */
export function readClaudeUsage(response: unknown): Usage {
  if (!isRecord(response)) return { state: "unknown", detail: "no usage response" };
  if (response.rate_limits_available !== true || !isRecord(response.rate_limits)) {
    // API keys, Bedrock/Vertex: no plan limits, and spending there is paid usage.
    return { state: "unknown", detail: "plan usage limits are not available for this login" };
  }
  const limits = response.rate_limits;
  const used: number[] = [];
  for (const name of WINDOWS) {
    const window = limits[name];
    if (isRecord(window) && typeof window.utilization === "number") used.push(window.utilization);
  }
  if (Array.isArray(limits.model_scoped)) {
    for (const w of limits.model_scoped)
      if (isRecord(w) && typeof w.utilization === "number") used.push(w.utilization);
  }
  if (used.length === 0) return { state: "unknown", detail: "usage windows carry no utilization" };
  if (used.some((u) => u >= 100)) return { state: "exhausted", detail: "a plan usage window is at 100%" };
  return { state: "ok" };
}

export const claudeProvider: AnswerProvider = {
  name: "claude",
  binary: "claude",

  async probe(ctx: ProviderContext): Promise<Availability> {
    const requestId = "recall-usage";
    const session = await withoutTraces(ctx, () =>
      jsonLineSession({
        command: ctx.command,
        args: [
          "-p",
          "--input-format",
          "stream-json",
          "--output-format",
          "stream-json",
          "--verbose",
          ...CLAUDE_ISOLATION,
        ],
        cwd: ctx.cwd,
        env: claudeEnv(ctx.env),
        signal: ctx.signal,
        timeoutMs: ctx.timeouts.probeMs,
        // A control request only: no user message is sent, so no model turn runs.
        messages: [{ type: "control_request", request_id: requestId, request: { subtype: "get_usage" } }],
        done: (lines) => lines.some((l) => isControlResponse(l, requestId)),
      }),
    );
    const line = session.lines.find((l) => isControlResponse(l, requestId));
    if (!line) {
      const why = session.timedOut ? "timed out" : (session.error ?? `exited with ${session.code}`);
      return { ok: false, reason: "probe-failed", detail: `claude usage probe ${why}` };
    }
    const response = (line as { response: Record<string, unknown> }).response;
    if (response.subtype !== "success") {
      return { ok: false, reason: "probe-failed", detail: "claude usage probe returned an error" };
    }
    const usage = readClaudeUsage(response.response);
    if (usage.state === "exhausted") return { ok: false, reason: "limits-exhausted", detail: usage.detail };
    if (usage.state === "unknown") return { ok: false, reason: "limits-unknown", detail: usage.detail };
    // Claude resolves its own aliases; the configured one is passed as is, with no fallback model.
    return { ok: true, model: ctx.config.claudeModel };
  },

  async run(ctx: ProviderContext, model: string, prompt: string): Promise<RunOutcome> {
    const result = await withoutTraces(ctx, () =>
      runProcess({
        command: ctx.command,
        args: [
          "-p",
          "--model",
          model,
          "--output-format",
          "json",
          "--disable-slash-commands",
          ...CLAUDE_ONE_TURN,
          ...CLAUDE_ISOLATION,
        ],
        cwd: ctx.cwd,
        env: claudeEnv(ctx.env),
        signal: ctx.signal,
        stdin: prompt,
        timeoutMs: ctx.timeouts.generationMs,
      }),
    );
    if (result.timedOut) return { ok: false, error: "timed out" };
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.stdout.trim());
    } catch {
      return { ok: false, error: describeExit(result, "no JSON result") };
    }
    // The turn cap ended the run: the model asked for a tool (there are none) instead of answering.
    if (isRecord(parsed) && parsed.subtype === "error_max_turns") {
      return { ok: false, error: "stopped at its one-turn limit (the model asked for a tool)" };
    }
    if (!isRecord(parsed) || typeof parsed.result !== "string") {
      return { ok: false, error: describeExit(result, "no result field") };
    }
    if (parsed.is_error === true || parsed.subtype !== "success" || result.code !== 0) {
      return { ok: false, error: describeExit(result, "reported an error") };
    }
    return { ok: true, text: parsed.result };
  },
};

function isControlResponse(line: unknown, requestId: string): boolean {
  return (
    isRecord(line) &&
    line.type === "control_response" &&
    isRecord(line.response) &&
    line.response.request_id === requestId
  );
}
