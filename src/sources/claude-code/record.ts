/**
 * Claude Code transcript lines (`projects/<slug>/<sessionId>.jsonl`) mapped into recall's
 * canonical transcript turns. Pure: one line in, one record out; `createClaudeMerger`
 * then joins the lines of one streamed API response and drops repeated uuids.
 *
 * Mapping, per transcript-formats.md §1:
 * - `user` lines: typed prompts are role "user"; lines answering tool calls are role "tool",
 *   or "user" when the person typed text beside the results; a line answering a file write
 *   (its `toolUseResult` holds the written content) starts with the call that wrote it
 *   (`Write` / `Edit` / `MultiEdit`, path and written text only), so the written content is
 *   previewed in the tool record;
 *   `isMeta` lines and text that is only `<system-reminder>`, `<command-*>`,
 *   `<local-command-*>` or `<bash-*>` spans are role "context"; `isCompactSummary` lines are
 *   role "system" with `isCompactionSummary`. Reminder spans inside a real prompt become
 *   context blocks beside the prompt's text. A slash command typed with arguments is a user
 *   turn: `[command: /name args]`.
 * - `assistant` lines: text, thinking, tool_use/server_tool_use (tool_call) and server tool
 *   results (tool_result). `redacted_thinking` and signatures are dropped. API error lines
 *   (`isApiErrorMessage`, model `<synthetic>`) are role "system".
 * - `attachment` lines: role "context", one context block labelled with `attachment.type`.
 * - `system` lines: role "system" with a one-line text, or skipped when they carry nothing
 *   to read (turn_duration, stop_hook_summary, …).
 * - `summary`, `custom-title`, `ai-title`: title records. Everything else: skip.
 * Images keep only their media type; base64 never leaves this module.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { CLAUDE_COMMAND_TAGS, commandLine } from "../../projection/index.js";
import { arr, bool, isRecord, num, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";
import { scrubBinary } from "../shared/binary.js";
import { splitInjected } from "../shared/injected.js";
import { imageMediaType, parseExitCode, splitContentItems } from "../shared/tool-output.js";
import { RecentMap, RecentSet } from "../shared/bounded.js";

export type ClaudeLineType = "user" | "assistant" | "attachment" | "system";

export interface ClaudeTurnRecord {
  type: "turn";
  lineType: ClaudeLineType;
  /** `system.subtype` or `attachment.type`. */
  subtype?: string;
  uuid: string;
  parentUuid: string | null;
  sessionId: string | null;
  agentId?: string;
  isSidechain: boolean;
  /** Epoch ms; null when the line has no parseable timestamp. */
  at: number | null;
  cwd?: string;
  gitBranch?: string;
  /** Claude Code version that wrote the line. */
  version?: string;
  model?: string;
  messageId?: string;
  requestId?: string;
  /** Assistant lines: the tool_use blocks' ids and names, in block order. */
  toolCalls?: { id: string; name: string }[];
  /** User lines: the `tool_use_id` of each tool_result block, in block order. */
  toolResultIds?: (string | null)[];
  /** Set by the merger when several lines of one API response became this record. */
  mergedUuids?: string[];
  turn: TranscriptTurn;
}

export interface ClaudeTitleRecord {
  type: "title";
  /** Absent on old `summary` lines, which point into a session only through `leafUuid`. */
  sessionId: string | null;
  title: string;
  source: "summary" | "custom-title" | "ai-title";
  leafUuid?: string;
}

export interface ClaudeSkipRecord {
  type: "skip";
  /** "malformed", "no-uuid", "empty", "duplicate-uuid", the line type, or `unknown:<type>`. */
  reason: string;
  uuid?: string;
}

export type ClaudeRecord = ClaudeTurnRecord | ClaudeTitleRecord | ClaudeSkipRecord;

/** Tags whose spans in user text are injected context, never user speech. */
export const CLAUDE_INJECTED_TAGS = [
  ...CLAUDE_COMMAND_TAGS,
  "bash-input",
  "bash-stdout",
  "bash-stderr",
  "user-prompt-submit-hook",
  "task-notification",
] as const;

/** Attachment text above this many characters is not kept (only the label is). */
export const CLAUDE_ATTACHMENT_TEXT_MAX = 4000;
/** System-line text is clipped to this many characters. */
export const CLAUDE_SYSTEM_TEXT_MAX = 2000;

/** Line types that never carry conversation. */
const METADATA_TYPES = new Set([
  "progress",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "permission-mode",
  "mode",
  "worktree-state",
  "pr-link",
  "agent-name",
  "atis-latch",
  "bridge-session",
  "relocated",
  "frame-link",
  "cost-state",
  "started",
  "result",
  "tag",
]);

/** System subtypes with nothing worth reading. */
const SILENT_SYSTEM_SUBTYPES = new Set([
  "turn_duration",
  "stop_hook_summary",
  "session_start",
  "bridge_status",
  "away_summary_update",
]);

const skip = (reason: string, uuid?: string): ClaudeSkipRecord =>
  uuid ? { type: "skip", reason, uuid } : { type: "skip", reason };

/** Maps one JSONL line. Never throws. */
export function parseClaudeLine(line: string): ClaudeRecord {
  const record = parseJsonObjectLine(line);
  if (!record) return skip("malformed");
  return mapClaudeRecord(record);
}

/** Maps one already-parsed line object. Never throws. */
export function mapClaudeRecord(record: JsonObject): ClaudeRecord {
  const type = str(record["type"]);
  if (!type) return skip("no-type");
  switch (type) {
    case "summary":
    case "custom-title":
    case "ai-title":
      return mapTitle(record, type);
    case "user":
    case "assistant":
    case "attachment":
    case "system":
      return mapTurnLine(record, type);
    default:
      return skip(METADATA_TYPES.has(type) ? type : `unknown:${type}`);
  }
}

function mapTitle(record: JsonObject, type: ClaudeTitleRecord["source"]): ClaudeRecord {
  const field = type === "summary" ? "summary" : type === "custom-title" ? "customTitle" : "aiTitle";
  const title = str(record[field])?.trim();
  if (!title) return skip("empty-title");
  const leafUuid = str(record["leafUuid"]);
  return {
    type: "title",
    sessionId: str(record["sessionId"]) ?? null,
    title,
    source: type,
    ...(leafUuid ? { leafUuid } : {}),
  };
}

interface Mapped {
  turn: TranscriptTurn;
  subtype?: string;
  toolCalls?: { id: string; name: string }[];
  toolResultIds?: (string | null)[];
}

function mapTurnLine(record: JsonObject, lineType: ClaudeLineType): ClaudeRecord {
  const uuid = str(record["uuid"]);
  if (!uuid) return skip("no-uuid");
  let mapped: Mapped | string;
  switch (lineType) {
    case "user":
      mapped = mapUser(record);
      break;
    case "assistant":
      mapped = mapAssistant(record);
      break;
    case "attachment":
      mapped = mapAttachment(record);
      break;
    case "system":
      mapped = mapSystem(record);
      break;
  }
  if (typeof mapped === "string") return skip(mapped, uuid);

  const message = obj(record["message"]);
  const model = lineType === "assistant" ? str(message["model"]) : undefined;
  const messageId = lineType === "assistant" ? str(message["id"]) : undefined;
  const requestId = str(record["requestId"]);
  const agentId = str(record["agentId"]);
  const cwd = str(record["cwd"]);
  const gitBranch = str(record["gitBranch"]);
  const version = str(record["version"]);
  return {
    type: "turn",
    lineType,
    ...(mapped.subtype ? { subtype: mapped.subtype } : {}),
    uuid,
    parentUuid: str(record["parentUuid"]) ?? null,
    sessionId: str(record["sessionId"]) ?? str(record["session_id"]) ?? null,
    ...(agentId ? { agentId } : {}),
    isSidechain: bool(record["isSidechain"]) ?? false,
    at: parseTimestamp(record["timestamp"]),
    ...(cwd ? { cwd } : {}),
    ...(gitBranch ? { gitBranch } : {}),
    ...(version ? { version } : {}),
    ...(model ? { model } : {}),
    ...(messageId ? { messageId } : {}),
    ...(requestId ? { requestId } : {}),
    ...(mapped.toolCalls && mapped.toolCalls.length > 0 ? { toolCalls: mapped.toolCalls } : {}),
    ...(mapped.toolResultIds && mapped.toolResultIds.length > 0
      ? { toolResultIds: mapped.toolResultIds }
      : {}),
    turn: mapped.turn,
  };
}

// ---------------------------------------------------------------- user

function textToBlocks(text: string, blocks: TranscriptBlock[]): void {
  const split = splitInjected(text, CLAUDE_INJECTED_TAGS);
  for (const span of split.context) blocks.push({ type: "context", label: span.label, text: span.text });
  // What the person typed after a slash command is their words: it stays searchable as one
  // metadata line. A bare command (`/clear`) stays context.
  const args = split.context.find((span) => span.label === "command-args")?.text ?? "";
  const name = split.context.find((span) => span.label === "command-name")?.text;
  if (name !== undefined && args.length > 0) blocks.push({ type: "text", text: commandLine(name, args) });
  if (split.text.length > 0) blocks.push({ type: "text", text: split.text });
}

function mapUser(record: JsonObject): Mapped | string {
  const message = obj(record["message"]);
  const content = message["content"];
  if (bool(record["isCompactSummary"]) === true) {
    const text = typeof content === "string" ? content : splitContentItems(arr(content)).text;
    if (text.trim().length === 0) return "empty";
    return {
      turn: { role: "system", blocks: [{ type: "text", text }], isCompactionSummary: true },
    };
  }

  const blocks: TranscriptBlock[] = [];
  const toolResultIds: (string | null)[] = [];
  if (typeof content === "string") {
    textToBlocks(content, blocks);
  } else {
    for (const item of arr(content)) {
      if (!isRecord(item)) continue;
      switch (item["type"]) {
        case "text":
          if (typeof item["text"] === "string") textToBlocks(item["text"], blocks);
          break;
        case "image":
        case "document":
          blocks.push(imageBlock(imageMediaType(item)));
          break;
        case "tool_result":
          toolResultIds.push(str(item["tool_use_id"]) ?? null);
          pushToolResult(item, blocks);
          break;
        default:
          break;
      }
    }
  }
  if (blocks.length === 0) return "empty";
  if (toolResultIds.length === 1) addWrittenCall(record["toolUseResult"], blocks);

  const isMeta = bool(record["isMeta"]) === true;
  let role: TranscriptTurn["role"];
  if (toolResultIds.length > 0) {
    // Text typed beside the results (an interruption, a message sent while a tool ran) is the
    // person's, indexed as theirs; a "tool" turn's text counts as tool output and never is.
    const typed = !isMeta && blocks.some((b) => b.type === "text" && b.text.trim() !== "");
    role = typed ? "user" : "tool";
  } else if (isMeta) {
    role = "context";
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i];
      if (block?.type === "text") blocks[i] = { type: "context", label: "meta", text: block.text };
    }
  } else {
    role = blocks.some((b) => b.type === "text" || b.type === "image") ? "user" : "context";
  }
  return { turn: { role, blocks, isCompactionSummary: false }, toolResultIds };
}

/**
 * A tool-result line of a file write carries what was written in its `toolUseResult`: Write
 * `{type: "create" | "update", filePath, content}`, Edit `{filePath, newString}`, MultiEdit
 * `{filePath, edits[{new_string}]}` (original file contents and old strings are never read).
 * That goes in front of the (successful) result as the call that wrote it, `Write` / `Edit` /
 * `MultiEdit` with `file_path` and the written text only, so the projection previews the
 * written content in this `tool` record (projection/transcript-turn.ts).
 */
function addWrittenCall(result: unknown, blocks: TranscriptBlock[]): void {
  if (!isRecord(result)) return;
  const filePath = str(result["filePath"]);
  if (!filePath) return;
  const at = blocks.findIndex((b) => b.type === "tool_result");
  const target = blocks[at];
  if (target?.type !== "tool_result" || target.isError === true) return;
  const type = str(result["type"]);
  let name: string | undefined;
  let input: Record<string, unknown> = { file_path: filePath };
  if (Array.isArray(result["edits"])) {
    const edits = arr(result["edits"]).flatMap((e) =>
      isRecord(e) && typeof e["new_string"] === "string" ? [{ new_string: e["new_string"] }] : [],
    );
    if (edits.length > 0) [name, input] = ["MultiEdit", { ...input, edits }];
  } else if (typeof result["newString"] === "string") {
    [name, input] = ["Edit", { ...input, new_string: result["newString"] }];
  } else if ((type === "create" || type === "update") && typeof result["content"] === "string") {
    [name, input] = ["Write", { ...input, content: result["content"] }];
  }
  if (name) blocks.splice(at, 0, { type: "tool_call", name, input: scrubBinary(input) });
}

function imageBlock(mediaType: string | undefined): TranscriptBlock {
  return mediaType ? { type: "image", mediaType } : { type: "image" };
}

function pushToolResult(item: JsonObject, blocks: TranscriptBlock[]): void {
  const isError = bool(item["is_error"]) === true;
  const content = item["content"];
  let output: unknown;
  const images: (string | undefined)[] = [];
  if (typeof content === "string") {
    output = scrubBinary(content);
  } else if (Array.isArray(content)) {
    const split = splitContentItems(content);
    images.push(...split.images);
    output = split.other.length === 0 ? scrubBinary(split.text) : scrubBinary(content);
  } else {
    output = content === undefined ? "" : scrubBinary(content);
  }
  const exitCode = isError && typeof output === "string" ? parseExitCode(output) : undefined;
  blocks.push({
    type: "tool_result",
    ...(isError ? { isError: true } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    output,
  });
  for (const mediaType of images) blocks.push(imageBlock(mediaType));
}

// ---------------------------------------------------------------- assistant

const SERVER_RESULT_SUFFIX = "_tool_result";

function mapAssistant(record: JsonObject): Mapped | string {
  const message = obj(record["message"]);
  const blocks: TranscriptBlock[] = [];
  const toolCalls: { id: string; name: string }[] = [];
  const content = message["content"];
  const items = typeof content === "string" ? [{ type: "text", text: content }] : arr(content);
  for (const item of items) {
    if (!isRecord(item)) continue;
    const type = str(item["type"]) ?? "";
    if (type === "text") {
      if (typeof item["text"] === "string" && item["text"].length > 0)
        blocks.push({ type: "text", text: item["text"] });
    } else if (type === "thinking") {
      if (typeof item["thinking"] === "string" && item["thinking"].length > 0) {
        blocks.push({ type: "thinking", text: item["thinking"] });
      }
    } else if (type === "tool_use" || type === "server_tool_use" || type === "mcp_tool_use") {
      const name = str(item["name"]) ?? "unknown";
      const id = str(item["id"]);
      if (id) toolCalls.push({ id, name });
      blocks.push({ type: "tool_call", name, input: scrubBinary(item["input"] ?? {}) });
    } else if (type.endsWith(SERVER_RESULT_SUFFIX)) {
      // web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, mcp_tool_result
      const resultContent = item["content"];
      const errorType = isRecord(resultContent) ? str(resultContent["type"]) : undefined;
      const isError = bool(item["is_error"]) === true || (errorType?.endsWith("_error") ?? false);
      blocks.push({
        type: "tool_result",
        name: type.slice(0, -SERVER_RESULT_SUFFIX.length),
        ...(isError ? { isError: true } : {}),
        output: scrubBinary(resultContent ?? ""),
      });
    }
    // redacted_thinking (opaque data), fallback markers and unknown blocks carry nothing readable.
  }
  if (blocks.length === 0) return "empty";
  const synthetic = bool(record["isApiErrorMessage"]) === true || message["model"] === "<synthetic>";
  return {
    turn: { role: synthetic ? "system" : "assistant", blocks, isCompactionSummary: false },
    toolCalls,
  };
}

// ---------------------------------------------------------------- attachment

function mapAttachment(record: JsonObject): Mapped | string {
  const attachment = obj(record["attachment"]);
  const label = str(attachment["type"]) ?? "attachment";
  const text = attachmentText(record, attachment);
  if (text.length === 0) return `attachment:${label}:empty`;
  return {
    subtype: label,
    turn: {
      role: "context",
      blocks: [{ type: "context", label, text: text.length <= CLAUDE_ATTACHMENT_TEXT_MAX ? text : "" }],
      isCompactionSummary: false,
    },
  };
}

/** The injected text of an attachment: its rendered content, else its own text fields. */
function attachmentText(record: JsonObject, attachment: JsonObject): string {
  const rendered = arr(record["rendered"])
    .map((r) => (isRecord(r) ? r["content"] : r))
    .filter((c): c is string => typeof c === "string");
  if (rendered.length > 0) return unwrapReminder(rendered.join("\n"));
  for (const key of ["content", "prompt", "text", "snippet", "banner", "stdout"]) {
    const value = attachment[key];
    if (typeof value === "string" && value.trim().length > 0) return value.trim();
    if (isRecord(value) && typeof value["content"] === "string") return value["content"].trim();
    if (Array.isArray(value)) {
      const text = splitContentItems(value).text.trim();
      if (text.length > 0) return text;
    }
  }
  return "";
}

/** Rendered attachments arrive wrapped in `<system-reminder>`; the label already says it is context. */
function unwrapReminder(text: string): string {
  const split = splitInjected(text, ["system-reminder"]);
  return [...split.context.map((c) => c.text), split.text]
    .filter((t) => t.length > 0)
    .join("\n")
    .trim();
}

// ---------------------------------------------------------------- system

function mapSystem(record: JsonObject): Mapped | string {
  const subtype = str(record["subtype"]) ?? "system";
  if (SILENT_SYSTEM_SUBTYPES.has(subtype)) return `system:${subtype}`;
  const text = systemText(record, subtype);
  if (text.length === 0) return `system:${subtype}`;
  const blocks: TranscriptBlock[] = [];
  textToBlocks(clip(text, CLAUDE_SYSTEM_TEXT_MAX), blocks);
  if (blocks.length === 0) return `system:${subtype}`;
  return { subtype, turn: { role: "system", blocks, isCompactionSummary: false } };
}

function systemText(record: JsonObject, subtype: string): string {
  const content = str(record["content"])?.trim() ?? "";
  switch (subtype) {
    case "compact_boundary": {
      const meta = obj(record["compactMetadata"]);
      const trigger = str(meta["trigger"]) ?? str(record["trigger"]);
      const preTokens = num(meta["preTokens"]);
      const details = [trigger ? `trigger ${trigger}` : "", preTokens ? `${preTokens} tokens before` : ""]
        .filter(Boolean)
        .join(", ");
      return details ? `Conversation compacted (${details}).` : "Conversation compacted.";
    }
    case "api_error":
    case "error": {
      const error = obj(record["error"]);
      const status = num(error["status"]) ?? num(obj(error["error"])["status"]);
      const message =
        str(error["message"]) ??
        str(obj(obj(error["error"])["error"])["message"]) ??
        str(error["type"]) ??
        content;
      return `API error${status ? ` ${status}` : ""}${message ? `: ${message}` : ""}`;
    }
    case "api_refusal":
      return str(record["apiRefusalExplanation"]) ?? (content || "The API refused the request.");
    default:
      return content;
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

// ---------------------------------------------------------------- merging and dedupe

export interface ClaudeMerger {
  /** Feeds one record; returns the records that are complete, in line order. */
  push(record: ClaudeRecord): ClaudeRecord[];
  /** Returns everything still held (call at end of file or of a read batch). */
  flush(): ClaudeRecord[];
  /**
   * At the end of what a still-growing file holds: the records queued behind the open response
   * (complete), and the open response as it stands, which stays open so that later lines of it
   * merge into it.
   */
  settle(): { open: ClaudeRecord | null; done: ClaudeRecord[] };
}

export interface ClaudeMergerOptions {
  /** How many uuids to remember for dedupe (default 100 000). */
  maxSeenUuids?: number;
  /** How many records may queue behind an open response before it is closed (default 256). */
  maxHeld?: number;
}

/**
 * Joins the lines of one API response and drops repeated uuids (transcript-formats §1.4).
 *
 * - Lines merge only when both `message.id` AND `requestId` are present and equal: the
 *   lazyagents recording reuses `msg_1` across two responses without a requestId, and those
 *   stay two turns. The merged record keeps the first line's uuid, time and parent, lists
 *   every line in `mergedUuids`, and concatenates the blocks in line order.
 * - An open response is held until an assistant line with another key arrives or `flush()`;
 *   records arriving meanwhile (tool results, attachments) queue behind it, so output order
 *   is line order. `settle()` hands out the open response as it stands and keeps it open. If
 *   a response continues after a flush, its later lines come out as a second record: content
 *   is never repeated, only split.
 * - A turn whose uuid was already seen becomes `{type:"skip", reason:"duplicate-uuid"}`
 *   (resumed sessions and forks copy lines; dedupe across files is the indexer's job, on uuid).
 * - Tool results get their tool's `name` from the tool_use ids seen earlier.
 */
export function createClaudeMerger(options: ClaudeMergerOptions = {}): ClaudeMerger {
  const seen = new RecentSet(options.maxSeenUuids ?? 100_000);
  const toolNames = new RecentMap<string>(4096);
  const maxHeld = options.maxHeld ?? 256;
  let open: { key: string; record: ClaudeTurnRecord } | null = null;
  let held: ClaudeRecord[] = [];

  const close = (): ClaudeRecord[] => {
    if (!open) {
      const out = held;
      held = [];
      return out;
    }
    const out: ClaudeRecord[] = [open.record, ...held];
    open = null;
    held = [];
    return out;
  };

  const passThrough = (record: ClaudeRecord): ClaudeRecord[] => {
    if (!open) return [record];
    held.push(record);
    return held.length > maxHeld ? close() : [];
  };

  return {
    push(record) {
      if (record.type !== "turn") return passThrough(record);
      if (seen.has(record.uuid)) return passThrough(skip("duplicate-uuid", record.uuid));
      seen.add(record.uuid);
      for (const call of record.toolCalls ?? []) toolNames.set(call.id, call.name);
      const named = nameToolResults(record, toolNames);

      const key =
        named.lineType === "assistant" && named.messageId && named.requestId
          ? `${named.messageId}\u0000${named.requestId}`
          : undefined;
      if (!key) return passThrough(named);
      if (open && open.key === key) {
        open.record = mergeInto(open.record, named);
        return [];
      }
      const out = close();
      open = { key, record: named };
      return out;
    },
    flush: close,
    settle() {
      const done = held;
      held = [];
      return { open: open?.record ?? null, done };
    },
  };
}

/** Batch form of the merger: merges and dedupes a whole file's records. */
export function mergeClaudeRecords(records: Iterable<ClaudeRecord>): ClaudeRecord[] {
  const merger = createClaudeMerger();
  const out: ClaudeRecord[] = [];
  for (const record of records) out.push(...merger.push(record));
  out.push(...merger.flush());
  return out;
}

function nameToolResults(record: ClaudeTurnRecord, names: RecentMap<string>): ClaudeTurnRecord {
  const ids = record.toolResultIds;
  if (!ids || ids.length === 0) return record;
  let index = 0;
  let changed = false;
  const blocks = record.turn.blocks.map((block) => {
    if (block.type !== "tool_result") return block;
    const id = ids[index++];
    const name = id ? names.get(id) : undefined;
    if (!name || block.name) return block;
    changed = true;
    return { ...block, name };
  });
  return changed ? { ...record, turn: { ...record.turn, blocks } } : record;
}

function mergeInto(first: ClaudeTurnRecord, next: ClaudeTurnRecord): ClaudeTurnRecord {
  const toolCalls = [...(first.toolCalls ?? []), ...(next.toolCalls ?? [])];
  return {
    ...first,
    model: first.model ?? next.model,
    mergedUuids: [...(first.mergedUuids ?? [first.uuid]), next.uuid],
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    turn: {
      role: first.turn.role === next.turn.role ? first.turn.role : "assistant",
      blocks: [...first.turn.blocks, ...next.turn.blocks],
      isCompactionSummary: first.turn.isCompactionSummary || next.turn.isCompactionSummary,
    },
  };
}
