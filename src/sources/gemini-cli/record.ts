/**
 * One line of a Gemini CLI chat log (`chats/session-*.jsonl`, 0.61): not one message per line but
 * an operation log. A header `{sessionId, projectHash, startTime, kind}` opens the file and every
 * resume; `{"$set": {...}}` patches change fields (`$set.messages` replaces the whole list: on a
 * resume it replays the history already logged, reshaped and partly under new ids); a message
 * `{id, timestamp, type, content, ...}` upserts by id (a tool-calling reply is written twice, the
 * second copy adding `toolCalls`). Pure: no I/O.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import type { Role } from "../../core/kinds.js";
import { onlyToolResults, partsBlocks } from "../shared/gemini-parts.js";
import { splitInjected } from "../shared/injected.js";
import { arr, isRecord, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";

/** The context block Gemini CLI puts first in every chat: date, OS, workspace folders, a file tree. */
export const SESSION_CONTEXT_TAG = "session_context";

export type GeminiLine =
  | { type: "header"; sessionId: string | undefined; summary: string | undefined }
  | {
      type: "set";
      sessionId: string | undefined;
      summary: string | undefined;
      /** The working folder the replayed session context names, when the patch replays one. */
      workspace: string | undefined;
    }
  | { type: "message"; message: GeminiMessage }
  | { type: "skip"; reason: "malformed" | "ignored" };

export interface GeminiMessage {
  id: string;
  at: number | null;
  role: Role;
  turn: TranscriptTurn;
  model: string | undefined;
  /** The first workspace folder a session-context message names. */
  workspace: string | undefined;
}

export function parseGeminiLine(text: string): GeminiLine {
  const value = parseJsonObjectLine(text);
  if (!value) return { type: "skip", reason: "malformed" };
  if (isRecord(value["$set"])) {
    const set = value["$set"];
    const messages = arr(set["messages"]).filter(isRecord);
    return {
      type: "set",
      sessionId: str(set["sessionId"]),
      summary: str(set["summary"]),
      workspace: messages.map((m) => workspaceOf(textOf(m["content"]))).find((w) => w !== undefined),
    };
  }
  if (str(value["sessionId"]) && str(value["startTime"]) && value["type"] === undefined) {
    return { type: "header", sessionId: str(value["sessionId"]), summary: str(value["summary"]) };
  }
  const id = str(value["id"]);
  if (!id) return { type: "skip", reason: "ignored" };
  const message = mapMessage(id, value);
  return message ? { type: "message", message } : { type: "skip", reason: "ignored" };
}

function mapMessage(id: string, value: JsonObject): GeminiMessage | null {
  const at = parseTimestamp(value["timestamp"]);
  const type = str(value["type"]);
  const base = { id, at, model: str(value["model"]), workspace: undefined };
  if (type === "user") {
    const blocks = userBlocks(value["content"]);
    if (blocks.length === 0) return null;
    const role: Role = onlyToolResults(blocks)
      ? "tool"
      : blocks.every((b) => b.type === "context")
        ? "context"
        : "user";
    const workspace = role === "context" ? workspaceOf(textOf(value["content"])) : undefined;
    return { ...base, workspace, role, turn: turn(role, blocks) };
  }
  if (type === "gemini") {
    const blocks: TranscriptBlock[] = [
      ...arr(value["thoughts"]).flatMap(thoughtBlock),
      ...partsBlocks(value["content"]),
      ...arr(value["toolCalls"]).filter(isRecord).map(toolCallBlock),
    ];
    if (blocks.length === 0) return null;
    return { ...base, role: "assistant", turn: turn("assistant", blocks) };
  }
  // `info`, `warning`, `error`: what the CLI itself told the person.
  if (type === "info" || type === "warning" || type === "error") {
    const text = textOf(value["content"]);
    if (!text) return null;
    return { ...base, role: "system", turn: turn("system", [{ type: "text", text }]) };
  }
  return null;
}

/** A user message's parts; `<session_context>` spans are context, never the person's words. */
function userBlocks(content: unknown): TranscriptBlock[] {
  return partsBlocks(content).flatMap((block): TranscriptBlock[] => {
    if (block.type !== "text") return [block];
    const split = splitInjected(block.text, [SESSION_CONTEXT_TAG]);
    return [
      ...split.context.map((c): TranscriptBlock => ({ type: "context", label: c.label, text: c.text })),
      ...(split.text ? [{ type: "text" as const, text: split.text }] : []),
    ];
  });
}

/** Thoughts are `{subject, description}` summaries: thinking, never indexed. */
function thoughtBlock(thought: unknown): TranscriptBlock[] {
  const t = obj(thought);
  const text = [str(t["subject"]), str(t["description"])].filter(Boolean).join(": ");
  return text ? [{ type: "thinking", text }] : [];
}

/** The call only: its output is the next user message's functionResponse, indexed there. */
function toolCallBlock(call: JsonObject): TranscriptBlock {
  return { type: "tool_call", name: str(call["name"]) ?? "tool", input: call["args"] ?? {} };
}

const turn = (role: Role, blocks: TranscriptBlock[]): TranscriptTurn => ({
  role,
  blocks,
  isCompactionSummary: false,
});

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .map((p) => str(obj(p)["text"]) ?? "")
    .join("\n");
}

const WORKSPACE = /Workspace Directories:\**\s*\n\s*-\s*(\S[^\n]*)/;

/** The first workspace folder a session context lists (Gemini CLI writes the cwd nowhere else). */
export function workspaceOf(text: string): string | undefined {
  if (!text.includes(SESSION_CONTEXT_TAG)) return undefined;
  return WORKSPACE.exec(text)?.[1]?.trim();
}
