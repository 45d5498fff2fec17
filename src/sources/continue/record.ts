/**
 * Continue CLI (`cn`, 1.5) sessions mapped into transcript turns. Pure: source.ts reads the files.
 *
 * A session is one JSON document `{sessionId, title, workspaceDirectory, history: [...]}` that
 * Continue rewrites whole after every turn. Each history item is `{message, contextItems,
 * toolCallStates?}`. A message's content is a string or a list of parts (`text`, `imageUrl`).
 * An assistant message names its calls in `toolCalls` (arguments as a JSON string), and their
 * outputs are not messages of their own: they sit in the same item's `toolCallStates[].output`,
 * so one item maps to one turn holding each call and its result side by side. Context items the
 * user attached are injected context.
 *
 * Nothing in the file records a time: see `continueTimes`.
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { arr, isRecord, obj, parseJson, str, type JsonObject } from "../shared/json.js";

export interface ContinueItem {
  /** The item's index in `history`, which a rewrite keeps (history only grows at the end). */
  index: number;
  model: string | null;
  turn: TranscriptTurn;
}

/** "Untitled Session" is the placeholder Continue writes until it names a session. */
export const PLACEHOLDER_TITLE = "Untitled Session";

export function continueTitle(value: unknown): string | null {
  const title = str(obj(value)["title"])?.trim();
  return title && title !== PLACEHOLDER_TITLE ? title : null;
}

/**
 * Continue records no times at all, so recall states one rule: item `i` is dated the session's
 * creation time (`dateCreated` in sessions.json, else the file's birth time) plus `i`
 * milliseconds. Times stay the same when the file is rewritten, and keep the items' order.
 */
export const continueTimes = (created: number, index: number) => created + index;

export function mapContinueHistory(value: unknown): { items: ContinueItem[]; skipped: number } {
  const items: ContinueItem[] = [];
  let skipped = 0;
  for (const [index, raw] of arr(obj(value)["history"]).entries()) {
    const item = isRecord(raw) ? mapItem(raw, index) : null;
    if (item) items.push(item);
    else skipped += 1;
  }
  return { items, skipped };
}

function textOf(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const part of arr(content)) {
    const p = obj(part);
    if (p["type"] === "text" && typeof p["text"] === "string") texts.push(p["text"]);
    else if (p["type"] === "imageUrl") images += 1;
  }
  return { text: texts.join("\n"), images };
}

function mapItem(item: JsonObject, index: number): ContinueItem | null {
  const message = obj(item["message"]);
  const role = str(message["role"]);
  const { text, images } = textOf(message["content"]);
  const blocks: TranscriptBlock[] = [];
  for (const c of arr(item["contextItems"])) {
    const content = str(obj(c)["content"]);
    if (content)
      blocks.push({ type: "context", label: str(obj(c)["name"]) ?? "context item", text: content });
  }
  let turnRole: TranscriptTurn["role"];
  switch (role) {
    case "user":
      if (text) blocks.push({ type: "text", text });
      turnRole = text || images > 0 ? "user" : "context";
      break;
    case "assistant":
      if (text) blocks.push({ type: "text", text });
      blocks.push(...toolBlocks(message, arr(item["toolCallStates"])));
      turnRole = "assistant";
      break;
    case "thinking":
      if (text) blocks.push({ type: "thinking", text });
      turnRole = "assistant";
      break;
    case "tool":
      blocks.push({ type: "tool_result", output: text });
      turnRole = "tool";
      break;
    case "system":
      if (text) blocks.push({ type: "context", label: "system", text });
      turnRole = "context";
      break;
    default:
      return null;
  }
  for (let i = 0; i < images; i++) blocks.push({ type: "image" });
  if (blocks.length === 0) return null;
  return {
    index,
    model: str(obj(message["usage"])["model"]) ?? null,
    turn: { role: turnRole, blocks, isCompactionSummary: false },
  };
}

/** Each call, followed by its result from the item's toolCallStates when it has one. */
function toolBlocks(message: JsonObject, states: unknown[]): TranscriptBlock[] {
  const byId = new Map<string, JsonObject>();
  for (const s of states) {
    const id = str(obj(s)["toolCallId"]);
    if (id) byId.set(id, obj(s));
  }
  const calls = arr(message["toolCalls"]);
  // A state whose call the message lost still has its output.
  const listed = calls.length > 0 ? calls : states.map((s) => obj(s)["toolCall"]);
  const blocks: TranscriptBlock[] = [];
  for (const raw of listed) {
    const call = obj(raw);
    const fn = obj(call["function"]);
    const name = str(fn["name"]) ?? "tool";
    const args = fn["arguments"];
    const parsed = typeof args === "string" ? parseJson(args) : null;
    blocks.push({ type: "tool_call", name, input: parsed?.ok ? parsed.value : (args ?? null) });
    const state = byId.get(str(call["id"]) ?? "");
    if (!state) continue;
    const output = arr(state["output"])
      .map((o) => str(obj(o)["content"]))
      .filter((s): s is string => s !== undefined);
    const status = str(state["status"]);
    if (output.length === 0 && status !== "errored") continue;
    blocks.push({
      type: "tool_result",
      name,
      ...(status === "errored" || status === "canceled" ? { isError: true } : {}),
      output: output.join("\n"),
    });
  }
  return blocks;
}
