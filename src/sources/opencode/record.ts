/**
 * opencode rows mapped into recall's canonical transcript turns (transcript-formats.md §3).
 * Pure: the reader selects rows; these functions only map them.
 *
 * - v1 (1.2–1.x SQLite `message` + `part`, and pre-1.2 `storage/` JSON): one message and its
 *   parts make one turn; the role is `data.role`. Parts: text (synthetic/ignored → context),
 *   reasoning → thinking, tool → tool_call + tool_result (adjacent, in the message's own turn:
 *   the projection previews the output there, and what a write/edit/patch call wrote, since
 *   opencode keeps a tool's input and output in one part), file → image (data: URLs are never
 *   kept) or a context note naming the file, patch/subtask → tool_call, compaction marker and
 *   step-start/step-finish/snapshot/agent/retry → nothing. An assistant message with
 *   `summary: true` is a compaction summary.
 * - v2 (2.x `session_message`): the `type` column is the kind: user, assistant, synthetic →
 *   context, system, shell → tool_call + tool_result, compaction → compaction summary;
 *   agent-switched/model-switched/idle are skipped.
 * - Sessions (`session`, `session_v2`, storage JSON) map to `OpencodeSessionMeta`.
 * Which schema to read for a session is `opencodeSessionSchema`: v2 when `session_message`
 * has rows and the session is in `session_v2`, else v1 — never both.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { arr, bool, isRecord, jsonColumn, num, obj, str, type JsonObject } from "../shared/json.js";
import { firstTimestamp, parseTimestamp } from "../shared/time.js";
import { parseDataUrl, scrubBinary } from "../shared/binary.js";
import { splitContentItems } from "../shared/tool-output.js";

export interface OpencodeModel {
  providerID?: string;
  modelID?: string;
}

export interface OpencodeSessionMeta {
  id: string;
  /** The parent session for child (subagent) sessions. */
  parentId: string | null;
  projectId?: string;
  /** The session's working directory. */
  directory?: string;
  title?: string;
  /** The opencode version that created the session. */
  version?: string;
  slug?: string;
  agent?: string;
  model?: OpencodeModel;
  forkSessionId?: string;
  createdAt: number | null;
  updatedAt: number | null;
}

export type OpencodeSchema = "v1" | "v2";

export interface OpencodeTurnRecord {
  type: "turn";
  schema: OpencodeSchema;
  /** Message id (`msg_…`); v1→v2 migration keeps ids, so it is a stable dedupe key. */
  id: string;
  sessionId: string;
  /** v1: data.role; v2: the `type` column. */
  kind: string;
  /** v2 `seq` (ordering within the session; has gaps). */
  seq?: number;
  at: number | null;
  updatedAt: number | null;
  model?: OpencodeModel;
  agent?: string;
  /** v1 assistant messages: the user message they answer. */
  parentMessageId?: string;
  /** Child sessions started by task/subagent tools in this message. */
  childSessionIds?: string[];
  turn: TranscriptTurn;
}

export interface OpencodeSkipRecord {
  type: "skip";
  reason: string;
  id?: string;
}

export type OpencodeRecord = OpencodeTurnRecord | OpencodeSkipRecord;

/** A row as better-sqlite3 returns it; `data` may be TEXT or already parsed. */
export type OpencodeRow = Record<string, unknown>;

const skip = (reason: string, id?: string): OpencodeSkipRecord =>
  id ? { type: "skip", reason, id } : { type: "skip", reason };

// ---------------------------------------------------------------- sessions

/** Maps a `session` (v1) or `session_v2` (2.x) row, selected by column name. */
export function mapOpencodeSessionRow(row: OpencodeRow): OpencodeSessionMeta | undefined {
  const id = str(row["id"]);
  if (!id) return undefined;
  const model = jsonColumn(row["model"]);
  return compact({
    id,
    parentId: str(row["parent_id"]) ?? null,
    projectId: str(row["project_id"]),
    directory: str(row["directory"]),
    title: str(row["title"]),
    version: str(row["version"]),
    slug: str(row["slug"]),
    agent: str(row["agent"]),
    model: model ? readModel(model) : undefined,
    forkSessionId: str(row["fork_session_id"]),
    createdAt: parseTimestamp(row["time_created"], "ms"),
    updatedAt: parseTimestamp(row["time_updated"], "ms"),
  });
}

/** Maps a pre-1.2 `storage/session/<projectID>/<sessionID>.json` object. */
export function mapOpencodeStorageSession(json: unknown): OpencodeSessionMeta | undefined {
  if (!isRecord(json)) return undefined;
  const id = str(json["id"]);
  if (!id) return undefined;
  const time = obj(json["time"]);
  return compact({
    id,
    parentId: str(json["parentID"]) ?? null,
    projectId: str(json["projectID"]),
    directory: str(json["directory"]),
    title: str(json["title"]),
    version: str(json["version"]),
    slug: str(json["slug"]),
    createdAt: parseTimestamp(time["created"], "ms"),
    updatedAt: parseTimestamp(time["updated"], "ms"),
  });
}

/**
 * Which tables hold a session's conversation: v2 when `session_message` has rows and the
 * session is in `session_v2` (an upgraded database keeps frozen v1 copies with the same
 * ids), else v1. A `session_message` table alone proves nothing: late 1.x builds created it empty.
 */
export function opencodeSessionSchema(
  sessionId: string,
  tables: { v2SessionIds: ReadonlySet<string>; sessionMessageRows: number },
): OpencodeSchema {
  return tables.sessionMessageRows > 0 && tables.v2SessionIds.has(sessionId) ? "v2" : "v1";
}

// ---------------------------------------------------------------- v1 messages and parts

/**
 * Maps one v1 `message` row and its `part` rows (any order; sorted here by part id, as
 * opencode does). Rows may carry `data` as TEXT or as an object.
 */
export function mapOpencodeV1Message(message: OpencodeRow, parts: readonly OpencodeRow[]): OpencodeRecord {
  const id = str(message["id"]);
  const sessionId = str(message["session_id"]) ?? str(message["sessionID"]);
  if (!id || !sessionId) return skip("no-id", id);
  const data = jsonColumn(message["data"]);
  if (!data) return skip("malformed", id);
  const role = str(data["role"]) ?? "unknown";
  const time = obj(data["time"]);

  const sorted = [...parts].sort((a, b) => compareIds(str(a["id"]), str(b["id"])));
  const blocks: TranscriptBlock[] = [];
  const childSessionIds: string[] = [];
  let compactionMarker = false;
  for (const row of sorted) {
    const part = jsonColumn(row["data"]);
    if (!part) continue;
    if (part["type"] === "compaction") compactionMarker = true;
    blocks.push(...v1PartBlocks(part, childSessionIds));
  }

  const isSummary = bool(data["summary"]) === true;
  const error = obj(data["error"]);
  if (blocks.length === 0 && role === "assistant" && str(error["name"])) {
    blocks.push({ type: "text", text: errorText(error) });
    return turnRecord("v1", id, sessionId, role, message, time, data, {
      role: "system",
      blocks,
      isCompactionSummary: false,
    });
  }
  if (blocks.length === 0) return skip(compactionMarker ? "compaction-marker" : "empty", id);

  let turnRole: TranscriptTurn["role"];
  if (isSummary) turnRole = "system";
  else if (role === "assistant") turnRole = "assistant";
  else if (role === "user") turnRole = blocks.every((b) => b.type === "context") ? "context" : "user";
  else turnRole = "system";
  return turnRecord(
    "v1",
    id,
    sessionId,
    role,
    message,
    time,
    data,
    { role: turnRole, blocks, isCompactionSummary: isSummary },
    childSessionIds,
  );
}

/**
 * Maps a pre-1.2 `storage/message/<sessionID>/<messageID>.json` object and its
 * `storage/part/<messageID>/*.json` objects through the v1 mapper.
 */
export function mapOpencodeStorageMessage(message: unknown, parts: readonly unknown[]): OpencodeRecord {
  if (!isRecord(message)) return skip("malformed");
  const time = obj(message["time"]);
  const row: OpencodeRow = {
    id: message["id"],
    session_id: message["sessionID"],
    time_created: time["created"],
    time_updated: time["completed"] ?? time["updated"],
    data: message,
  };
  const partRows = parts.filter(isRecord).map((p): OpencodeRow => ({ id: p["id"], data: p }));
  return mapOpencodeV1Message(row, partRows);
}

function v1PartBlocks(part: JsonObject, childSessionIds: string[]): TranscriptBlock[] {
  switch (part["type"]) {
    case "text": {
      const text = typeof part["text"] === "string" ? part["text"] : "";
      if (!text.trim()) return [];
      if (bool(part["synthetic"]) === true) return [{ type: "context", label: "synthetic", text }];
      if (bool(part["ignored"]) === true) return [{ type: "context", label: "ignored", text }];
      return [{ type: "text", text }];
    }
    case "reasoning": {
      const text = str(part["text"]);
      return text ? [{ type: "thinking", text }] : [];
    }
    case "tool":
      return v1ToolBlocks(part, childSessionIds);
    case "file":
      return [fileBlock(part)];
    case "patch":
      return [
        {
          type: "tool_call",
          name: "patch",
          input: scrubBinary({ hash: part["hash"], files: arr(part["files"]) }),
        },
      ];
    case "subtask":
      return [
        {
          type: "tool_call",
          name: "subtask",
          input: scrubBinary({
            prompt: part["prompt"],
            description: part["description"],
            agent: part["agent"],
            ...(part["command"] !== undefined ? { command: part["command"] } : {}),
          }),
        },
      ];
    // step-start, step-finish, snapshot, agent, retry, compaction: bookkeeping, nothing to read.
    default:
      return [];
  }
}

function v1ToolBlocks(part: JsonObject, childSessionIds: string[]): TranscriptBlock[] {
  const name = str(part["tool"]) ?? "unknown";
  const state = obj(part["state"]);
  const status = str(state["status"]);
  const metadata = obj(state["metadata"]);
  const child = str(metadata["sessionId"]) ?? str(metadata["sessionID"]);
  if (child) childSessionIds.push(child);
  const blocks: TranscriptBlock[] = [{ type: "tool_call", name, input: scrubBinary(state["input"] ?? {}) }];
  if (status === "completed") {
    const exitCode = num(metadata["exit"]);
    blocks.push({
      type: "tool_result",
      name,
      ...(exitCode !== undefined ? { exitCode } : {}),
      output: scrubBinary(state["output"] ?? ""),
    });
  } else if (status === "error") {
    blocks.push({ type: "tool_result", name, isError: true, output: scrubBinary(state["error"] ?? "") });
  }
  for (const attachment of arr(state["attachments"]))
    if (isRecord(attachment)) blocks.push(fileBlock(attachment));
  return blocks;
}

// ---------------------------------------------------------------- v2 session_message

/** Maps one 2.x `session_message` row; the `type` column is the kind. */
export function mapOpencodeV2Message(row: OpencodeRow): OpencodeRecord {
  const id = str(row["id"]);
  const sessionId = str(row["session_id"]);
  if (!id || !sessionId) return skip("no-id", id);
  const kind = str(row["type"]) ?? "";
  const data = jsonColumn(row["data"]);
  if (!data) return skip("malformed", id);
  const time = obj(data["time"]);
  const childSessionIds: string[] = [];
  const make = (turn: TranscriptTurn): OpencodeRecord =>
    turnRecord("v2", id, sessionId, kind, row, time, data, turn, childSessionIds);

  switch (kind) {
    case "user": {
      const blocks: TranscriptBlock[] = [];
      const text = typeof data["text"] === "string" ? data["text"] : "";
      if (text.trim()) blocks.push({ type: "text", text });
      for (const file of arr(data["files"])) if (isRecord(file)) blocks.push(fileBlock(file));
      if (blocks.length === 0) return skip("empty", id);
      const role = blocks.some((b) => b.type === "text" || b.type === "image") ? "user" : "context";
      return make({ role, blocks, isCompactionSummary: false });
    }
    case "assistant": {
      const blocks = v2AssistantBlocks(arr(data["content"]), childSessionIds);
      if (blocks.length === 0) {
        const error = data["error"];
        if (isRecord(error) || typeof error === "string") {
          return make({
            role: "system",
            blocks: [{ type: "text", text: errorText(error) }],
            isCompactionSummary: false,
          });
        }
        return skip("empty", id);
      }
      return make({ role: "assistant", blocks, isCompactionSummary: false });
    }
    case "synthetic": {
      const text = str(data["text"]);
      if (!text) return skip("empty", id);
      return make({
        role: "context",
        blocks: [{ type: "context", label: "synthetic", text }],
        isCompactionSummary: false,
      });
    }
    case "system": {
      const text = str(data["text"]);
      if (!text) return skip("empty", id);
      return make({ role: "system", blocks: [{ type: "text", text }], isCompactionSummary: false });
    }
    case "shell": {
      const command = data["command"];
      const output = data["output"];
      const blocks: TranscriptBlock[] = [
        { type: "tool_call", name: "shell", input: scrubBinary({ command: command ?? "" }) },
      ];
      if (output !== undefined && output !== null) {
        blocks.push({ type: "tool_result", name: "shell", output: scrubBinary(output) });
      }
      return make({ role: "tool", blocks, isCompactionSummary: false });
    }
    case "compaction": {
      const summary = str(data["summary"]);
      if (!summary) return skip("compaction:empty", id);
      return make({ role: "system", blocks: [{ type: "text", text: summary }], isCompactionSummary: true });
    }
    case "agent-switched":
    case "model-switched":
    case "idle":
      return skip(kind, id);
    default:
      return skip(`unknown:${kind || "?"}`, id);
  }
}

function v2AssistantBlocks(content: unknown[], childSessionIds: string[]): TranscriptBlock[] {
  const blocks: TranscriptBlock[] = [];
  for (const item of content) {
    if (!isRecord(item)) continue;
    switch (item["type"]) {
      case "text": {
        const text = typeof item["text"] === "string" ? item["text"] : "";
        if (!text.trim()) break;
        if (bool(item["synthetic"]) === true) blocks.push({ type: "context", label: "synthetic", text });
        else if (bool(item["ignored"]) === true) blocks.push({ type: "context", label: "ignored", text });
        else blocks.push({ type: "text", text });
        break;
      }
      case "reasoning": {
        const text = str(item["text"]);
        if (text) blocks.push({ type: "thinking", text });
        break;
      }
      case "tool":
        blocks.push(...v2ToolBlocks(item, childSessionIds));
        break;
      default:
        break;
    }
  }
  return blocks;
}

function v2ToolBlocks(item: JsonObject, childSessionIds: string[]): TranscriptBlock[] {
  const name = str(item["name"]) ?? "unknown";
  const state = obj(item["state"]);
  const status = str(state["status"]);
  const metadata = obj(state["metadata"]);
  const child = str(metadata["sessionID"]) ?? str(metadata["sessionId"]);
  if (child) childSessionIds.push(child);
  const blocks: TranscriptBlock[] = [{ type: "tool_call", name, input: scrubBinary(state["input"] ?? {}) }];
  if (status === "completed") {
    const split = splitContentItems(arr(state["content"]));
    const exitCode = num(metadata["exit"]);
    blocks.push({
      type: "tool_result",
      name,
      ...(exitCode !== undefined ? { exitCode } : {}),
      output: scrubBinary(split.other.length === 0 ? split.text : arr(state["content"])),
    });
    for (const mediaType of split.images)
      blocks.push(mediaType ? { type: "image", mediaType } : { type: "image" });
    for (const attachment of arr(state["attachments"]))
      if (isRecord(attachment)) blocks.push(fileBlock(attachment));
  } else if (status === "error") {
    const error = state["error"];
    const message = isRecord(error)
      ? (str(error["message"]) ?? str(error["type"]) ?? "")
      : (str(error) ?? "");
    blocks.push({ type: "tool_result", name, isError: true, output: scrubBinary(message) });
  }
  return blocks;
}

// ---------------------------------------------------------------- shared pieces

/** A file part or attachment: an image block for images and data: URLs, else a context note naming it. */
function fileBlock(file: JsonObject): TranscriptBlock {
  const url = str(file["url"]);
  const dataUrl = url ? parseDataUrl(url) : undefined;
  const mime = str(file["mime"]) ?? str(file["mediaType"]) ?? dataUrl?.mediaType;
  if (dataUrl || mime?.startsWith("image/"))
    return mime ? { type: "image", mediaType: mime } : { type: "image" };
  const source = obj(file["source"]);
  const name =
    str(file["filename"]) ?? str(file["name"]) ?? str(source["path"]) ?? str(file["path"]) ?? url ?? "file";
  return { type: "context", label: "file", text: mime ? `${name} (${mime})` : name };
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const e = obj(error);
  const name = str(e["name"]) ?? str(e["type"]) ?? "Error";
  const message = str(obj(e["data"])["message"]) ?? str(e["message"]);
  return message ? `${name}: ${message}` : name;
}

function readModel(source: JsonObject): OpencodeModel | undefined {
  const providerID = str(source["providerID"]);
  const modelID = str(source["modelID"]) ?? str(source["id"]);
  if (!providerID && !modelID) return undefined;
  return { ...(providerID ? { providerID } : {}), ...(modelID ? { modelID } : {}) };
}

/** v1 flat modelID/providerID, JSON-era model{providerID,modelID}, v2 model{id,providerID}. */
function messageModel(data: JsonObject): OpencodeModel | undefined {
  const flat = readModel({ providerID: data["providerID"], modelID: data["modelID"] });
  return flat ?? (isRecord(data["model"]) ? readModel(data["model"]) : undefined);
}

function turnRecord(
  schema: OpencodeSchema,
  id: string,
  sessionId: string,
  kind: string,
  row: OpencodeRow,
  time: JsonObject,
  data: JsonObject,
  turn: TranscriptTurn,
  childSessionIds: string[] = [],
): OpencodeTurnRecord {
  const model = messageModel(data);
  const agent = str(data["agent"]);
  const parentMessageId = str(data["parentID"]);
  const seq = num(row["seq"]);
  return {
    type: "turn",
    schema,
    id,
    sessionId,
    kind,
    ...(seq !== undefined ? { seq } : {}),
    at: firstTimestamp([row["time_created"], "ms"], [time["created"], "ms"]),
    updatedAt: firstTimestamp(
      [row["time_updated"], "ms"],
      [time["completed"], "ms"],
      [time["created"], "ms"],
    ),
    ...(model ? { model } : {}),
    ...(agent ? { agent } : {}),
    ...(parentMessageId ? { parentMessageId } : {}),
    ...(childSessionIds.length > 0 ? { childSessionIds: [...new Set(childSessionIds)] } : {}),
    turn,
  };
}

function compareIds(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}
