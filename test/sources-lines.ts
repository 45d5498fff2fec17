/** Line builders for the transcript source tests: minimal real-format Claude Code and Codex lines. */
import { spawnSync } from "node:child_process";
import { encodeZstdRawFrame } from "../src/demo/zstd-frame.js";

export const BASE_TIME = Date.UTC(2026, 5, 1, 12, 0, 0);
export const iso = (ms: number) => new Date(ms).toISOString();

export interface ClaudeLineOptions {
  uuid: string;
  text: string;
  session: string;
  role?: "user" | "assistant";
  at?: number;
  cwd?: string;
  /** For assistant lines: lines of one API response share message id and request id. */
  messageId?: string;
  requestId?: string;
}

export function claudeLine(o: ClaudeLineOptions): string {
  const role = o.role ?? "user";
  const line: Record<string, unknown> = {
    type: role,
    uuid: o.uuid,
    parentUuid: null,
    isSidechain: false,
    sessionId: o.session,
    cwd: o.cwd ?? "/nonexistent/recall-test/proj",
    gitBranch: "main",
    version: "2.1.284",
    timestamp: iso(o.at ?? BASE_TIME),
    message:
      role === "user"
        ? { role: "user", content: o.text }
        : {
            id: o.messageId ?? `msg_${o.uuid}`,
            role: "assistant",
            model: "claude-test-model",
            content: [{ type: "text", text: o.text }],
          },
  };
  if (role === "assistant") line["requestId"] = o.requestId ?? `req_${o.uuid}`;
  return `${JSON.stringify(line)}\n`;
}

/** A user line whose text is about `bytes` long (a pasted file), made of words with a unique token. */
export function hugeClaudeLine(session: string, uuid: string, bytes: number, token: string): string {
  const filler = "lorem ipsum dolor sit amet ".repeat(Math.ceil(bytes / 27)).slice(0, bytes);
  return claudeLine({ uuid, session, text: `${token} ${filler}` });
}

export function codexMeta(thread: string, cwd = "/nonexistent/recall-test/codex", at = BASE_TIME): string {
  return `${JSON.stringify({
    timestamp: iso(at),
    type: "session_meta",
    payload: {
      id: thread,
      timestamp: iso(at),
      cwd,
      originator: "codex_cli_rs",
      cli_version: "0.158.0",
      source: "cli",
    },
  })}\n`;
}

export function codexTurnContext(at = BASE_TIME, model = "gpt-test"): string {
  return `${JSON.stringify({ timestamp: iso(at), type: "turn_context", payload: { cwd: "/nonexistent/recall-test/codex", model } })}\n`;
}

/** One turn as 0.147+ writes it: response_item, then its item_completed twin. */
function codexTurn(role: "user" | "assistant", thread: string, text: string, at: number, id: string): string {
  const user = role === "user";
  const item = {
    timestamp: iso(at),
    type: "response_item",
    payload: { type: "message", role, id, content: [{ type: user ? "input_text" : "output_text", text }] },
  };
  const event = {
    timestamp: iso(at),
    type: "event_msg",
    payload: {
      type: "item_completed",
      thread_id: thread,
      turn_id: `turn-${id}`,
      item: user
        ? { type: "UserMessage", id, content: [{ type: "text", text }] }
        : { type: "AgentMessage", id, content: [{ type: "Text", text }] },
    },
  };
  return `${JSON.stringify(item)}\n${JSON.stringify(event)}\n`;
}

export const codexUserTurn = (thread: string, text: string, at: number, id: string) =>
  codexTurn("user", thread, text, at, id);

export const codexAgentTurn = (thread: string, text: string, at: number, id: string) =>
  codexTurn("assistant", thread, text, at, id);

/** zstd-compresses with the zstd binary when present (real compressed blocks), else raw-block frames. */
export function zstd(data: Buffer): Buffer {
  const run = spawnSync("zstd", ["-q", "-c", "-3"], { input: data, maxBuffer: 1 << 30 });
  if (run.status === 0 && run.stdout.length > 0) return run.stdout;
  return encodeZstdRawFrame(data);
}

/** A fork's own session_meta (first line of its rollout): `forked_from_id` names the parent thread. */
export function codexForkMeta(thread: string, forkedFrom: string, at = BASE_TIME): string {
  return `${JSON.stringify({
    timestamp: iso(at),
    type: "session_meta",
    payload: {
      id: thread,
      forked_from_id: forkedFrom,
      timestamp: iso(at),
      cwd: "/nonexistent/recall-test/codex",
      originator: "codex_cli_rs",
      cli_version: "0.158.0",
      source: "cli",
    },
  })}\n`;
}

/** A `thread_name_updated` event; `thread` null writes it without a thread_id. */
export function codexThreadName(thread: string | null, name: string, at = BASE_TIME): string {
  const payload = {
    type: "thread_name_updated",
    ...(thread ? { thread_id: thread } : {}),
    thread_name: name,
  };
  return `${JSON.stringify({ timestamp: iso(at), type: "event_msg", payload })}\n`;
}

/**
 * Claude Code lines of one session with content blocks (tool calls, tool results with their
 * envelope's toolUseResult), as version 2.1.284 writes them.
 */
export function claudeBlockLines(session: string, cwd: string) {
  const envelope = (uuid: string, at: number) => ({
    uuid,
    parentUuid: null,
    isSidechain: false,
    sessionId: session,
    cwd,
    version: "2.1.284",
    gitBranch: "main",
    timestamp: iso(at),
  });
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  return {
    line,
    user: (uuid: string, at: number, content: unknown) =>
      line({ ...envelope(uuid, at), type: "user", message: { role: "user", content } }),
    assistant: (uuid: string, at: number, content: unknown[]) =>
      line({
        ...envelope(uuid, at),
        type: "assistant",
        requestId: `req_${uuid}`,
        message: { id: `msg_${uuid}`, role: "assistant", model: "claude-test-model", content },
      }),
    toolResult: (
      uuid: string,
      at: number,
      id: string,
      content: string,
      isError: boolean,
      toolUseResult: unknown,
    ) =>
      line({
        ...envelope(uuid, at),
        type: "user",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }],
        },
        toolUseResult,
      }),
  };
}
