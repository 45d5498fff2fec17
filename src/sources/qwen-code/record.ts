/**
 * One line of a Qwen Code chat (`projects/<cwd slug>/chats/<sessionId>.jsonl`, 0.24): an
 * envelope `{uuid, parentUuid, sessionId, timestamp, type, cwd, version, gitBranch}` around a
 * Gemini-API message. `user` (the person's prompt), `assistant` (`message.parts`: text, thoughts,
 * function calls; `model`), `tool_result` (functionResponse parts, with `toolCallResult` giving
 * the status and exit code) and `system` lines (telemetry, attribution snapshots: not records).
 * Pure: no I/O.
 */
import type { Role } from "../../core/kinds.js";
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { onlyToolResults, partsBlocks } from "../shared/gemini-parts.js";
import { splitInjected } from "../shared/injected.js";
import { num, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";

export type QwenLine =
  | {
      type: "turn";
      uuid: string;
      sessionId: string | undefined;
      at: number | null;
      role: Role;
      turn: TranscriptTurn;
      cwd: string | undefined;
      gitBranch: string | undefined;
      model: string | undefined;
    }
  | { type: "skip"; reason: "malformed" | "ignored" };

/** Tags Qwen Code wraps injected context in when it puts it in a user message. */
const INJECTED_TAGS = ["system-reminder", "session_context"];

export function parseQwenLine(text: string): QwenLine {
  const value = parseJsonObjectLine(text);
  if (!value) return { type: "skip", reason: "malformed" };
  const uuid = str(value["uuid"]);
  const type = str(value["type"]);
  if (!uuid || (type !== "user" && type !== "assistant" && type !== "tool_result")) {
    return { type: "skip", reason: "ignored" };
  }
  const parts = obj(value["message"])["parts"];
  let blocks = partsBlocks(parts);
  let role: Role;
  if (type === "assistant") role = "assistant";
  else if (type === "tool_result" || onlyToolResults(blocks)) {
    role = "tool";
    blocks = blocks.map((b) => (b.type === "tool_result" ? withResult(b, obj(value["toolCallResult"])) : b));
  } else {
    blocks = blocks.flatMap(userBlock);
    role = blocks.length > 0 && blocks.every((b) => b.type === "context") ? "context" : "user";
  }
  if (blocks.length === 0) return { type: "skip", reason: "ignored" };
  return {
    type: "turn",
    uuid,
    sessionId: str(value["sessionId"]),
    at: parseTimestamp(value["timestamp"]),
    role,
    turn: { role, blocks, isCompactionSummary: false },
    cwd: str(value["cwd"]),
    gitBranch: str(value["gitBranch"]),
    model: str(value["model"]),
  };
}

function userBlock(block: TranscriptBlock): TranscriptBlock[] {
  if (block.type !== "text") return [block];
  const split = splitInjected(block.text, INJECTED_TAGS);
  return [
    ...split.context.map((c): TranscriptBlock => ({ type: "context", label: c.label, text: c.text })),
    ...(split.text ? [{ type: "text" as const, text: split.text }] : []),
  ];
}

/** The call's status and exit code (`toolCallResult`) on its output. */
function withResult(block: TranscriptBlock, result: JsonObject): TranscriptBlock {
  if (block.type !== "tool_result") return block;
  const display = obj(result["resultDisplay"]);
  const exitCode = num(display["exitCode"]);
  const failed = result["status"] === "error" || (exitCode !== undefined && exitCode !== 0);
  return {
    ...block,
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(failed ? { isError: true } : {}),
  };
}
