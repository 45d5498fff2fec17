/**
 * GitHub Copilot CLI's `events.jsonl` lines (docs/sources/copilot.md) as transcript turns. Each
 * line is `{type, data, id, timestamp, parentId}`; the event id is the record key.
 *
 * - `session.start` / `session.resume`: the session's cwd, git branch and selected model.
 * - `user.message`: the prompt as typed (`content`; `transformedContent` only adds a datetime tag).
 *   Copilot records no title but its first prompt (`workspace.yaml` name), so recall sets none:
 *   a conversation title is searched with every record of it, and the prompt is its own record.
 * - `assistant.message`: text, reasoning (thinking, never indexed) and `toolRequests` as calls.
 * - `tool.execution_complete`: the output Copilot gave the model (`result.content`, already cut
 *   to a preview when large), named from the `tool.execution_start` of the same call id.
 * - `system.message` (the CLI's own fixed system prompt), turn markers, usage and shutdown
 *   accounting carry nothing a person said: skipped.
 */
import type { TranscriptBlock } from "../../core/transcript.js";
import { type LineEvent, type LineMemory, type SessionFacts } from "../files/line-transcript.js";
import { scrubBinary } from "../shared/binary.js";
import { arr, bool, isRecord, num, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";

export function mapCopilotLine(text: string, memory: LineMemory): LineEvent {
  const line = parseJsonObjectLine(text);
  if (!line) return { type: "malformed" };
  const type = str(line["type"]);
  const data = obj(line["data"]);
  const id = str(line["id"]);
  const at = parseTimestamp(line["timestamp"]);
  switch (type) {
    case "session.start":
    case "session.resume":
      return { type: "skip", facts: sessionFacts(data) };
    case "tool.execution_start": {
      const call = str(data["toolCallId"]);
      const name = str(data["toolName"]);
      if (call && name) memory[`tool:${call}`] = name;
      return { type: "skip" };
    }
    case "user.message":
      return id ? userTurn(id, at, data) : { type: "skip" };
    case "assistant.message":
      return id ? assistantTurn(id, at, data) : { type: "skip" };
    case "tool.execution_complete":
      return id ? toolTurn(id, at, data, memory) : { type: "skip" };
    default:
      return { type: "skip" };
  }
}

function sessionFacts(data: JsonObject): SessionFacts {
  const context = obj(data["context"]);
  const cwd = str(context["gitRoot"]) ?? str(context["cwd"]);
  const branch = str(context["branch"]);
  const model = str(data["selectedModel"]);
  return { ...(cwd ? { cwd } : {}), ...(branch ? { branch } : {}), ...(model ? { model } : {}) };
}

function userTurn(id: string, at: number | null, data: JsonObject): LineEvent {
  const text = str(data["content"]) ?? "";
  if (text.trim().length === 0) return { type: "skip" };
  return {
    type: "record",
    key: id,
    at,
    turn: { role: "user", blocks: [{ type: "text", text }], isCompactionSummary: false },
  };
}

function assistantTurn(id: string, at: number | null, data: JsonObject): LineEvent {
  const blocks: TranscriptBlock[] = [];
  const reasoning = str(data["reasoningText"]);
  if (reasoning) blocks.push({ type: "thinking", text: reasoning });
  const text = str(data["content"]);
  if (text && text.trim().length > 0) blocks.push({ type: "text", text });
  for (const request of arr(data["toolRequests"])) {
    if (!isRecord(request)) continue;
    blocks.push({
      type: "tool_call",
      name: str(request["name"]) ?? "unknown",
      input: scrubBinary(request["arguments"] ?? {}),
    });
  }
  if (blocks.length === 0) return { type: "skip" };
  const model = str(data["model"]);
  return {
    type: "record",
    key: id,
    at,
    turn: { role: "assistant", blocks, isCompactionSummary: false },
    ...(model ? { model } : {}),
  };
}

function toolTurn(id: string, at: number | null, data: JsonObject, memory: LineMemory): LineEvent {
  const call = str(data["toolCallId"]);
  const name = call ? memory[`tool:${call}`] : undefined;
  if (call) delete memory[`tool:${call}`];
  const result = data["result"];
  const error = data["error"];
  const output = isRecord(result)
    ? (result["content"] ?? "")
    : isRecord(error)
      ? (error["message"] ?? "")
      : (result ?? "");
  const isError = bool(data["success"]) === false;
  const exitCode = num(obj(data["shellExecution"])["exitCode"]);
  return {
    type: "record",
    key: id,
    at,
    turn: {
      role: "tool",
      blocks: [
        {
          type: "tool_result",
          ...(name ? { name } : {}),
          ...(isError ? { isError: true } : {}),
          ...(exitCode !== undefined ? { exitCode } : {}),
          output: scrubBinary(output),
        },
      ],
      isCompactionSummary: false,
    },
  };
}
