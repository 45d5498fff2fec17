import { readFile } from "node:fs/promises";
import path from "node:path";
import { jsonLineSession, runProcess } from "../process.js";
import type { AnswerProvider, Availability, ProviderContext, RunOutcome } from "../types.js";
import { describeExit, isRecord } from "./common.js";

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
    const session = await jsonLineSession({
      command: ctx.command,
      args: ["app-server"],
      cwd: ctx.cwd,
      env: ctx.env,
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
    const lastMessage = path.join(ctx.cwd, "codex-last-message.txt");
    const result = await runProcess({
      command: ctx.command,
      args: [
        "exec",
        // User config (MCP servers, profiles, hooks) stays out; auth still comes from CODEX_HOME.
        "--ignore-user-config",
        "--ignore-rules",
        "--sandbox",
        "read-only",
        "-c",
        'approval_policy="never"',
        "-c",
        'web_search="disabled"',
        "--skip-git-repo-check",
        "--ephemeral",
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
      env: ctx.env,
      signal: ctx.signal,
      stdin: prompt,
      timeoutMs: ctx.timeouts.generationMs,
    });
    if (result.timedOut) return { ok: false, error: "timed out" };
    if (result.code !== 0) return { ok: false, error: describeExit(result, "failed") };
    let text: string;
    try {
      text = await readFile(lastMessage, "utf8");
    } catch {
      return { ok: false, error: describeExit(result, "wrote no last message") };
    }
    return { ok: true, text };
  },
};
