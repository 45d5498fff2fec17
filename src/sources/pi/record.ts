/**
 * pi's session files (docs/sources/pi.md): a `session` header line `{id, timestamp, cwd}`, then
 * entries `{type, id, parentId, timestamp}` forming a tree (branches stay in the same file; every
 * entry is indexed once, under its own id).
 *
 * - `message` entries by `message.role`: `user` (text and images), `assistant` (text, thinking,
 *   `toolCall`), `toolResult` (the tool's output as the model saw it; pi keeps the tail of a
 *   large one and names its full-output file in `details`, which is not read), and
 *   `bashExecution` (a command the person ran with `!`, kept as a call and its output).
 * - `compaction` and `branch_summary`: summaries replacing earlier history (system turns).
 * - `custom_message`: text an extension injected (context).
 * - `model_change`: the model; `session_info`: the name the person gave the session. A header's
 *   `parentSession` (the file of the session it was forked from) links the fork to its parent.
 * - `thinking_level_change`, `label` and extension `custom` data: skipped.
 * Without a name the session has no title: a conversation title is searched with every record
 * of it, so the first prompt (pi's session list shows it) stays only its own record.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { type LineEvent, type SessionFacts } from "../files/line-transcript.js";
import { scrubBinary } from "../shared/binary.js";
import { arr, bool, isRecord, num, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";
import { piSession } from "./session.js";
import { imageMediaType, splitContentItems } from "../shared/tool-output.js";

export function mapPiLine(text: string): LineEvent {
  const line = parseJsonObjectLine(text);
  if (!line) return { type: "malformed" };
  const type = str(line["type"]);
  const id = str(line["id"]);
  const at = parseTimestamp(line["timestamp"]);
  switch (type) {
    case "session":
      return { type: "skip", facts: headerFacts(line) };
    case "model_change": {
      const model = str(line["modelId"]);
      return { type: "skip", ...(model ? { facts: { model } } : {}) };
    }
    case "session_info": {
      const name = str(line["name"])?.trim();
      return { type: "skip", ...(name ? { facts: { title: name } } : {}) };
    }
    case "message":
      return id ? message(id, at, obj(line["message"])) : { type: "skip" };
    case "compaction":
    case "branch_summary": {
      const summary = str(line["summary"]);
      if (!id || !summary?.trim()) return { type: "skip" };
      return record(id, at, {
        role: "system",
        blocks: [{ type: "text", text: summary }],
        isCompactionSummary: true,
      });
    }
    case "custom_message": {
      const content = contentText(line["content"]);
      if (!id || !content.trim()) return { type: "skip" };
      const label = str(line["customType"]) ?? "extension";
      return record(id, at, {
        role: "context",
        blocks: [{ type: "context", label, text: content }],
        isCompactionSummary: false,
      });
    }
    default:
      return { type: "skip" };
  }
}

/** The header's cwd, and the session a fork was made from (`parentSession`, that session's file). */
function headerFacts(line: JsonObject): SessionFacts {
  const cwd = str(line["cwd"]);
  const parent = str(line["parentSession"]);
  return { ...(cwd ? { cwd } : {}), ...(parent ? { parent: piSession(parent) } : {}) };
}

const record = (
  key: string,
  at: number | null,
  turn: TranscriptTurn,
  extra: { model?: string; facts?: SessionFacts } = {},
): LineEvent => ({
  type: "record",
  key,
  at,
  turn,
  ...extra,
});

function contentText(content: unknown): string {
  return typeof content === "string" ? content : splitContentItems(arr(content)).text;
}

function message(id: string, at: number | null, message: JsonObject): LineEvent {
  const when = at ?? parseTimestamp(message["timestamp"], "ms");
  switch (str(message["role"])) {
    case "user":
      return user(id, when, message["content"]);
    case "assistant":
      return assistant(id, when, message);
    case "toolResult":
      return toolResult(id, when, message);
    case "bashExecution":
      return bash(id, when, message);
    default:
      return { type: "skip" };
  }
}

function user(id: string, at: number | null, content: unknown): LineEvent {
  const blocks: TranscriptBlock[] = [];
  const items = typeof content === "string" ? [{ type: "text", text: content }] : arr(content);
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item["type"] === "text" && typeof item["text"] === "string" && item["text"].trim())
      blocks.push({ type: "text", text: item["text"] });
    else if (item["type"] === "image") {
      const mediaType = imageMediaType(item);
      blocks.push(mediaType ? { type: "image", mediaType } : { type: "image" });
    }
  }
  if (blocks.length === 0) return { type: "skip" };
  return record(id, at, { role: "user", blocks, isCompactionSummary: false });
}

function assistant(id: string, at: number | null, message: JsonObject): LineEvent {
  const blocks: TranscriptBlock[] = [];
  for (const item of arr(message["content"])) {
    if (!isRecord(item)) continue;
    switch (item["type"]) {
      case "text":
        if (typeof item["text"] === "string" && item["text"].trim())
          blocks.push({ type: "text", text: item["text"] });
        break;
      case "thinking":
        if (typeof item["thinking"] === "string" && item["thinking"])
          blocks.push({ type: "thinking", text: item["thinking"] });
        break;
      case "toolCall":
        blocks.push({
          type: "tool_call",
          name: str(item["name"]) ?? "unknown",
          input: scrubBinary(item["arguments"] ?? {}),
        });
        break;
      default:
        break;
    }
  }
  const model = str(message["model"]);
  if (blocks.length === 0) return { type: "skip", ...(model ? { facts: { model } } : {}) };
  // An API error ends the turn with no content of its own; its message is what the person saw.
  const role = str(message["stopReason"]) === "error" ? "system" : "assistant";
  return record(id, at, { role, blocks, isCompactionSummary: false }, model ? { model } : {});
}

function toolResult(id: string, at: number | null, message: JsonObject): LineEvent {
  const content = arr(message["content"]);
  const split = splitContentItems(content);
  const name = str(message["toolName"]);
  const isError = bool(message["isError"]) === true;
  const blocks: TranscriptBlock[] = [
    {
      type: "tool_result",
      ...(name ? { name } : {}),
      ...(isError ? { isError: true } : {}),
      output: scrubBinary(split.text),
    },
  ];
  for (const mediaType of split.images)
    blocks.push(mediaType ? { type: "image", mediaType } : { type: "image" });
  return record(id, at, { role: "tool", blocks, isCompactionSummary: false });
}

function bash(id: string, at: number | null, message: JsonObject): LineEvent {
  const command = str(message["command"]);
  if (!command) return { type: "skip" };
  const exitCode = num(message["exitCode"]);
  const failed = exitCode !== undefined && exitCode !== 0;
  return record(id, at, {
    role: "tool",
    blocks: [
      { type: "tool_call", name: "bash", input: { command } },
      {
        type: "tool_result",
        name: "bash",
        ...(failed ? { isError: true } : {}),
        ...(exitCode !== undefined ? { exitCode } : {}),
        output: scrubBinary(str(message["output"]) ?? ""),
      },
    ],
    isCompactionSummary: false,
  });
}
