/**
 * Cline CLI (3.x) sessions mapped into transcript turns. Pure: source.ts reads the files.
 *
 * `<id>.messages.json` is one document `{sessionId, messages: [...]}` that Cline rewrites whole
 * after every turn. Messages use Anthropic-style blocks: a typed prompt is a user text block
 * wrapped in `<user_input mode="…">…</user_input>` (other user text, such as `[SYSTEM] …` nudges,
 * is injected context); assistant messages hold text, thinking and `tool_use` blocks; tool
 * outputs come back as user messages of `tool_result` blocks, whose content is a list of
 * `{query, result, success}` items for `run_commands` or text items for other tools.
 *
 * `<id>.json` beside it is the session's metadata: cwd, model, the first prompt, `metadata.title`
 * and `metadata.git.branch`, and `parent_session_id` for a spawned subagent.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { arr, bool, isRecord, num, obj, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";

export interface ClineMeta {
  cwd: string | null;
  title: string | null;
  model: string | null;
  branch: string | null;
  parent: string | null;
  startedAt: number | null;
}

export interface ClineMessage {
  /** The message's own id, else its index in the document. */
  key: string;
  at: number | null;
  model: string | null;
  turn: TranscriptTurn;
}

const USER_INPUT = /^\s*<user_input\b[^>]*>([\s\S]*?)<\/user_input>\s*$/;

/** The session metadata file (`<id>.json`); every field optional. */
export function mapClineMeta(value: unknown): ClineMeta {
  const v = obj(value);
  const metadata = obj(v["metadata"]);
  const prompt = str(v["prompt"]);
  return {
    cwd: str(v["cwd"]) ?? str(v["workspace_root"]) ?? null,
    title: str(metadata["title"]) ?? (prompt ? prompt.slice(0, 120) : null),
    model: str(v["model"]) ?? null,
    branch: str(obj(metadata["git"])["branch"]) ?? null,
    parent: str(v["parent_session_id"]) ?? null,
    startedAt: parseTimestamp(v["started_at"], "ms"),
  };
}

/** The session id a messages document names. */
export const clineSessionOf = (value: unknown): string | undefined =>
  str(obj(value)["sessionId"]) ?? str(obj(obj(value)["origin"])["sessionId"]);

/** Every message of a messages document (the ones with nothing to index are left out). */
export function mapClineMessages(value: unknown): { messages: ClineMessage[]; skipped: number } {
  const messages: ClineMessage[] = [];
  let skipped = 0;
  for (const [index, raw] of arr(obj(value)["messages"]).entries()) {
    const message = isRecord(raw) ? mapClineMessage(raw, index) : null;
    if (message) messages.push(message);
    else skipped += 1;
  }
  return { messages, skipped };
}

function mapClineMessage(m: JsonObject, index: number): ClineMessage | null {
  const role = str(m["role"]);
  const content =
    typeof m["content"] === "string" ? [{ type: "text", text: m["content"] }] : arr(m["content"]);
  const blocks: TranscriptBlock[] = [];
  let typed = false;
  for (const item of content) {
    const block = obj(item);
    switch (block["type"]) {
      case "text": {
        const text = str(block["text"]);
        if (!text) break;
        if (role !== "user") blocks.push({ type: "text", text });
        else {
          const input = USER_INPUT.exec(text);
          if (input) {
            typed = true;
            blocks.push({ type: "text", text: input[1]! });
          } else blocks.push({ type: "context", label: "cline", text });
        }
        break;
      }
      case "thinking":
      case "reasoning": {
        const text = str(block["thinking"]) ?? str(block["text"]);
        if (text) blocks.push({ type: "thinking", text });
        break;
      }
      case "tool_use":
        blocks.push({ type: "tool_call", name: str(block["name"]) ?? "tool", input: block["input"] ?? null });
        break;
      case "tool_result":
        blocks.push(toolResult(block));
        break;
      case "image":
        blocks.push({ type: "image" });
        break;
      default:
        break;
    }
  }
  if (blocks.length === 0) return null;
  let turnRole: TranscriptTurn["role"];
  if (role === "assistant") turnRole = "assistant";
  else if (role === "user") {
    if (typed) turnRole = "user";
    else if (blocks.some((b) => b.type === "tool_result")) turnRole = "tool";
    else turnRole = "context";
  } else turnRole = "system";
  return {
    key: str(m["id"]) ?? String(index),
    at: parseTimestamp(m["ts"], "ms"),
    model: str(obj(m["modelInfo"])["id"]) ?? null,
    turn: { role: turnRole, blocks, isCompactionSummary: false },
  };
}

/**
 * A tool_result block: `run_commands` items keep each command's output (the command itself is
 * in the call), text items their text; the projection previews and bounds it.
 */
function toolResult(block: JsonObject): TranscriptBlock {
  const name = str(block["name"]);
  const raw = block["content"];
  let isError = bool(block["is_error"]) === true;
  let output: unknown = raw;
  if (Array.isArray(raw)) {
    const parts: string[] = [];
    for (const item of raw) {
      const o = obj(item);
      if (typeof o["result"] === "string") {
        parts.push(o["result"]);
        if (o["success"] === false) isError = true;
      } else if (typeof o["error"] === "string") {
        parts.push(o["error"]);
        isError = true;
      } else if (typeof o["text"] === "string") parts.push(o["text"]);
    }
    if (parts.length > 0) output = parts.join("\n");
  }
  const exitCode = num(block["exit_code"]);
  return {
    type: "tool_result",
    ...(name ? { name } : {}),
    ...(isError ? { isError } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    output,
  };
}
