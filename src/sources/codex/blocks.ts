/** Pure pieces of the Codex rollout parser: turns, images, tool names, inputs, outputs and writes. */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { bool, isRecord, num, obj, parseJson, str, type JsonObject } from "../shared/json.js";
import { firstTimestamp } from "../shared/time.js";
import { parseDataUrl, scrubBinary } from "../shared/binary.js";
import { parseExitCode, splitContentItems } from "../shared/tool-output.js";
import { patchFileNames } from "../../projection/tool-summary.js";
import { patchIn, writtenPreviewText } from "../../projection/tool-preview.js";
import type { CodexWrite } from "./record-types.js";

/** Whether this writer records `item_completed` events, which name their thread (0.147+, §2.6). */
export function recordsItemCompleted(cliVersion: string | undefined): boolean {
  const m = /^(\d+)\.(\d+)/.exec(cliVersion ?? "");
  return m !== null && (Number(m[1]) > 0 || Number(m[2]) >= 147);
}

/** Two layers' copies of one message compare equal whatever their whitespace. */
export function compareKey(text: string): string {
  return text.replace(/\s+/g, "");
}

export function ids(
  itemId: string | undefined,
  callId: string | undefined,
): { itemId?: string; callId?: string } {
  return { ...(itemId ? { itemId } : {}), ...(callId ? { callId } : {}) };
}

export function payloadTurnId(payload: JsonObject): string | undefined {
  return (
    str(payload["turn_id"]) ??
    str(obj(payload["internal_chat_message_metadata_passthrough"])["turn_id"]) ??
    str(obj(payload["metadata"])["turn_id"])
  );
}

export function lineTime(line: JsonObject): number | null {
  const payload = obj(line["payload"]);
  return firstTimestamp(
    [line["timestamp"]],
    [payload["completed_at_ms"], "ms"],
    [payload["started_at_ms"], "ms"],
    [payload["timestamp"]],
    [payload["completed_at"]],
    [payload["started_at"]],
  );
}

export function userTurn(blocks: TranscriptBlock[]): TranscriptTurn {
  return { role: "user", blocks, isCompactionSummary: false };
}

export function assistantTurn(blocks: TranscriptBlock[]): TranscriptTurn {
  return { role: "assistant", blocks, isCompactionSummary: false };
}

export function systemTurn(text: string): TranscriptTurn {
  return { role: "system", blocks: [{ type: "text", text }], isCompactionSummary: false };
}

export function textOf(blocks: TranscriptBlock[]): string {
  return blocks
    .filter((b): b is Extract<TranscriptBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/** An image block from a URL or path; a data URL gives its media type and is never kept. */
export function imageBlock(source: unknown): TranscriptBlock {
  let url: string | undefined;
  if (typeof source === "string") url = source;
  else if (isRecord(source)) url = str(source["url"]) ?? str(source["image_url"]) ?? str(source["path"]);
  const fromDataUrl = url ? parseDataUrl(url)?.mediaType : undefined;
  const mediaType = fromDataUrl ?? (url ? mediaTypeFromExtension(url) : undefined);
  return mediaType ? { type: "image", mediaType } : { type: "image" };
}

export function mediaTypeFromExtension(url: string): string | undefined {
  const ext = /\.([a-z0-9]{3,4})(?:$|[?#])/i.exec(url.slice(-16))?.[1]?.toLowerCase();
  switch (ext) {
    case "png":
      return "image/png";
    case "jpg":
    case "jpeg":
      return "image/jpeg";
    case "gif":
      return "image/gif";
    case "webp":
      return "image/webp";
    default:
      return undefined;
  }
}

/**
 * What a write-like call writes (an apply_patch's added lines, wherever the patch sits, or a
 * write tool's content), reduced at once to its bounded preview: the parser's state carries it
 * from the call's line to its result's, and the state is checkpointed.
 */
export function codexWrite(name: string, input: unknown): CodexWrite | undefined {
  const patch = patchIn(input);
  const content = writtenPreviewText(name, patch ?? input);
  if (content === undefined) return undefined;
  if (patch !== undefined) {
    const files = patchFileNames(patch);
    return { name: "apply_patch", ...(files.length > 0 ? { path: files.join(", ") } : {}), content };
  }
  const fields = isRecord(input) ? input : {};
  const path = str(fields["path"]) ?? str(fields["file_path"]) ?? str(fields["filePath"]);
  return { name, ...(path ? { path } : {}), content };
}

/**
 * The call a result's tool turn starts with when the call wrote content: the projection
 * previews that content there, beside the result (projection/transcript-turn.ts).
 */
export function writtenCall(write: CodexWrite): TranscriptBlock {
  return {
    type: "tool_call",
    name: write.name,
    input: { ...(write.path ? { path: write.path } : {}), content: write.content },
  };
}

export function toolName(type: string, payload: JsonObject): string {
  switch (type) {
    case "local_shell_call":
      return "local_shell";
    case "web_search_call":
      return "web_search";
    case "tool_search_call":
      return "tool_search";
    default:
      return str(payload["name"]) ?? "unknown";
  }
}

/** Raw tool input: function_call arguments are a JSON string (parsed when valid); custom tools take free text. */
export function toolInput(type: string, payload: JsonObject): unknown {
  switch (type) {
    case "function_call": {
      const args = payload["arguments"];
      if (typeof args !== "string") return scrubBinary(args ?? {});
      const parsed = parseJson(args);
      return scrubBinary(parsed.ok ? parsed.value : args);
    }
    case "custom_tool_call":
      return scrubBinary(payload["input"] ?? "");
    case "local_shell_call":
    case "web_search_call":
      return scrubBinary(payload["action"] ?? {});
    default:
      return scrubBinary(payload["arguments"] ?? {});
  }
}

/**
 * A tool output as blocks: a string (exit code read from a "Process exited with code N"
 * header, or from the pre-0.5x `{"output","metadata":{"exit_code"}}` JSON wrapper), an array
 * of content items (text joined; images become image blocks), or the oldest
 * `{content, success}` shape.
 */
export function toolOutput(raw: unknown, name: string | undefined): TranscriptBlock[] {
  const images: TranscriptBlock[] = [];
  let output: unknown;
  let exitCode: number | undefined;
  let isError = false;
  const items = Array.isArray(raw)
    ? raw
    : isRecord(raw) && typeof raw["type"] === "string"
      ? [raw]
      : undefined;
  if (typeof raw === "string") {
    output = scrubBinary(raw);
    exitCode = parseExitCode(raw) ?? wrappedExitCode(raw);
  } else if (items) {
    const split = splitContentItems(items);
    for (const mediaType of split.images)
      images.push(mediaType ? { type: "image", mediaType } : { type: "image" });
    output =
      split.other.length === 0 ? scrubBinary(split.text) : scrubBinary(items.filter((i) => !isImageItem(i)));
    exitCode = parseExitCode(split.text);
  } else if (isRecord(raw) && ("content" in raw || "success" in raw)) {
    const content = raw["content"];
    output = scrubBinary(typeof content === "string" ? content : (content ?? ""));
    if (typeof content === "string") exitCode = parseExitCode(content);
    isError = bool(raw["success"]) === false;
  } else {
    output = scrubBinary(raw ?? "");
  }
  const block: TranscriptBlock = {
    type: "tool_result",
    ...(name ? { name } : {}),
    ...(isError ? { isError: true } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    output,
  };
  return [block, ...images];
}

export function isImageItem(item: unknown): boolean {
  return isRecord(item) && typeof item["type"] === "string" && /image/i.test(item["type"]);
}

export function wrappedExitCode(raw: string): number | undefined {
  if (!raw.startsWith("{") || !raw.includes("exit_code")) return undefined;
  const parsed = parseJson(raw);
  if (!parsed.ok || !isRecord(parsed.value)) return undefined;
  return num(obj(parsed.value["metadata"])["exit_code"]);
}
