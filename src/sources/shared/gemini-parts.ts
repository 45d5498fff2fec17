/**
 * The Gemini API's `Content.parts` (Gemini CLI and its fork Qwen Code store messages in this
 * shape): text, thoughts, function calls and responses, inline data. Mapped onto transcript
 * blocks; what may be indexed is the projection's decision.
 */
import type { TranscriptBlock } from "../../core/transcript.js";
import { anyStr, arr, isRecord, obj, str } from "./json.js";

/** One part as blocks: a thought is thinking (never indexed), binary data keeps its media type only. */
export function partBlocks(part: unknown): TranscriptBlock[] {
  if (typeof part === "string") return part.length > 0 ? [{ type: "text", text: part }] : [];
  if (!isRecord(part)) return [];
  const text = anyStr(part["text"]);
  if (text !== undefined) {
    if (text.length === 0) return [];
    return [part["thought"] === true ? { type: "thinking", text } : { type: "text", text }];
  }
  if (isRecord(part["functionCall"])) {
    const call = part["functionCall"];
    return [{ type: "tool_call", name: str(call["name"]) ?? "tool", input: call["args"] ?? {} }];
  }
  if (isRecord(part["functionResponse"])) return [functionResponseBlock(part["functionResponse"])];
  for (const key of ["inlineData", "fileData"]) {
    if (isRecord(part[key])) {
      const mediaType = str(obj(part[key])["mimeType"]);
      return [mediaType ? { type: "image", mediaType } : { type: "image" }];
    }
  }
  return [];
}

/** A `parts` list (or a plain string, as Gemini CLI writes a model message) as blocks. */
export function partsBlocks(content: unknown): TranscriptBlock[] {
  if (typeof content === "string") return partBlocks(content);
  return arr(content).flatMap(partBlocks);
}

/** `{id, name, response: {output} | {error}}`: the tool's output, an error when it reports one. */
export function functionResponseBlock(response: Record<string, unknown>): TranscriptBlock {
  const body = obj(response["response"]);
  const error = body["error"];
  const output = body["output"] ?? body["content"] ?? (error === undefined ? body : error);
  return {
    type: "tool_result",
    name: str(response["name"]) ?? "tool",
    ...(error !== undefined && error !== null ? { isError: true } : {}),
    output,
  };
}

/** Whether every block answers a tool (a user-role message that only carries results). */
export const onlyToolResults = (blocks: readonly TranscriptBlock[]) =>
  blocks.length > 0 && blocks.every((b) => b.type === "tool_result");
