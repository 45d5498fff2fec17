/**
 * Codex CLI rollout lines (`sessions/YYYY/MM/DD/rollout-<time>-<threadId>.jsonl[.zst]`)
 * mapped into recall's canonical transcript turns by a small, pure, incremental state
 * machine: `push(line)` returns the records that line completes; `flush()` returns what is
 * still held. The state is plain JSON (`snapshot()`), so a reader can checkpoint it next to
 * its byte cursor and resume with `createCodexRolloutParser(threadId, state)`. Its rules (one
 * layer per kind of content, fork replay) are in docs/sources/codex.md, "The reader's rules".
 */
import type { TranscriptBlock, TranscriptTurn } from "../../core/transcript.js";
import { arr, isRecord, num, obj, parseJsonObjectLine, str, type JsonObject } from "../shared/json.js";
import { scrubBinary } from "../shared/binary.js";
import { leadingTag } from "../shared/injected.js";
import { splitContentItems } from "../shared/tool-output.js";
import { RecentMap, RecentSet } from "../shared/bounded.js";
import {
  assistantTurn,
  codexWrite,
  compareKey,
  ids,
  imageBlock,
  lineTime,
  payloadTurnId,
  recordsItemCompleted,
  systemTurn,
  textOf,
  toolInput,
  toolName,
  toolOutput,
  userTurn,
  writtenCall,
} from "./blocks.js";
import { readSessionMeta, THREAD_ID } from "./session-meta.js";
import type {
  CodexLayer,
  CodexParserState,
  CodexRecord,
  CodexRolloutParser,
  CodexSkipRecord,
  CodexTurnRecord,
  CodexWrite,
  Kind,
} from "./record-types.js";

export * from "./record-types.js";
export { toolOutput } from "./blocks.js";
export { codexThreadIdFromPath, readSessionMeta } from "./session-meta.js";

const QUIET_LINE_LIMIT = 32;
const RELEASED_MEMORY = 16;
const CALL_MEMORY = 4096;
/** Pending write previews kept (each at most ~3 KiB): a call's result normally follows it at once. */
const WRITE_MEMORY = 8;

export function initialCodexState(threadId: string | null): CodexParserState {
  return {
    v: 1,
    threadId: threadId ? threadId.toLowerCase() : null,
    meta: null,
    firstMeta: null,
    model: null,
    cwd: null,
    turnId: null,
    eventLayer: { user: false, assistant: false },
    pending: null,
    released: { user: [], assistant: [] },
    calls: [],
    callNames: [],
    skipped: {},
    lines: 0,
    turns: 0,
    replay: false,
  };
}

/** Content-item kinds (0.150+) that are the user's own typing. */
const USER_KINDS = new Set(["user.text", "user.image", "user.local_image"]);
/** Injected blocks recognised by their opening tag when content_item_kinds is absent. */
const INJECTED_TAGS = new Set([
  "environment_context",
  "user_instructions",
  "turn_aborted",
  "user_shell_command",
  "permissions instructions",
  "skills_instructions",
  "collaboration_mode",
  "subagent_notification",
  "apps_instructions",
  "personality_spec",
  "INSTRUCTIONS",
]);
const IMAGE_WRAPPER = /^\s*<\/?image\b[^>]*>\s*$/i;

/** A label when this input text is injected context rather than typed by the user. */
export function codexInjectedLabel(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (/^# AGENTS\.md instructions/i.test(trimmed)) return "agents_md";
  const tag = leadingTag(trimmed);
  if (!tag) return undefined;
  // HTML tags never contain "_" or spaces; Codex's injected tags usually do.
  if (INJECTED_TAGS.has(tag) || /[_ ]/.test(tag)) return tag;
  return undefined;
}

export function createCodexRolloutParser(
  threadIdFromFileName: string | null,
  resume?: CodexParserState,
): CodexRolloutParser {
  const state: CodexParserState = resume ? structuredClone(resume) : initialCodexState(threadIdFromFileName);
  const calls = new RecentSet(CALL_MEMORY, state.calls);
  const callNames = new RecentMap<string>(CALL_MEMORY, state.callNames);
  const writes = new RecentMap<CodexWrite>(WRITE_MEMORY, state.writes ?? []);
  const released = {
    user: new RecentSet(RELEASED_MEMORY, state.released.user),
    assistant: new RecentSet(RELEASED_MEMORY, state.released.assistant),
  };

  const countSkip = (reason: string): CodexSkipRecord => {
    state.skipped[reason] = (state.skipped[reason] ?? 0) + 1;
    return { type: "skip", reason };
  };

  /** Emits the held candidate, if any. */
  const release = (): CodexRecord[] => {
    const pending = state.pending;
    if (!pending) return [];
    state.pending = null;
    released[pending.kind].add(pending.normalized);
    return [pending.record];
  };

  /** Output of one line: a held candidate goes out before any new turn, or after enough quiet lines. */
  const emit = (records: CodexRecord[]): CodexRecord[] => {
    if (records.some((r) => r.type === "turn")) return [...release(), ...records];
    if (state.pending && ++state.pending.quietLines > QUIET_LINE_LIMIT) return [...release(), ...records];
    return records;
  };

  // ------------------------------------------------------------ context for records

  const turnRecord = (
    line: JsonObject,
    layer: CodexLayer,
    item: string,
    turn: TranscriptTurn,
    refs: { itemId?: string; callId?: string; turnId?: string } = {},
  ): CodexTurnRecord => {
    const payload = obj(line["payload"]);
    const turnId = refs.turnId ?? payloadTurnId(payload) ?? state.turnId ?? undefined;
    const model = state.model ?? undefined;
    const cwd = state.cwd ?? state.meta?.cwd ?? undefined;
    return {
      type: "turn",
      layer,
      item,
      ...(refs.itemId ? { itemId: refs.itemId } : {}),
      ...(refs.callId ? { callId: refs.callId } : {}),
      ...(turnId ? { turnId } : {}),
      at: lineTime(line),
      ...(model ? { model } : {}),
      ...(cwd ? { cwd } : {}),
      turn,
    };
  };

  // ------------------------------------------------------------ messages and layers

  /** A user/assistant message read from response_item: held, or dropped once the event layer is elected. */
  const offerResponseMessage = (kind: Kind, record: CodexTurnRecord, text: string): CodexRecord[] => {
    if (state.eventLayer[kind]) return [countSkip("duplicate-layer")];
    const out = release();
    state.pending = { kind, record, normalized: compareKey(text), quietLines: 0 };
    return out;
  };

  /** A user/assistant message read from event_msg: the authoritative layer. */
  const offerEventMessage = (kind: Kind, record: CodexTurnRecord, text: string): CodexRecord[] => {
    state.eventLayer[kind] = true;
    const normalized = compareKey(text);
    const pending = state.pending;
    // Same text only: resolving on turn id alone could drop a message that has no event copy.
    if (pending && pending.kind === kind && pending.normalized === normalized) {
      state.pending = null;
      countSkip("duplicate-layer");
      return [{ ...record, replacesHeld: true }];
    }
    if (released[kind].delete(normalized)) return emit([countSkip("duplicate-layer")]);
    return emit([record]);
  };

  // ------------------------------------------------------------ response_item

  const responseItem = (line: JsonObject): CodexRecord[] => {
    const payload = obj(line["payload"]);
    const type = str(payload["type"]) ?? "";
    const itemId = str(payload["id"]);
    const callId = str(payload["call_id"]);
    switch (type) {
      case "message":
        return responseMessage(line, payload, itemId);
      case "reasoning": {
        const blocks: TranscriptBlock[] = [];
        for (const part of [...arr(payload["summary"]), ...arr(payload["content"])]) {
          const text = isRecord(part) ? str(part["text"]) : undefined;
          if (text) blocks.push({ type: "thinking", text });
        }
        if (blocks.length === 0) return emit([countSkip("reasoning:encrypted-only")]);
        return emit([turnRecord(line, "response_item", type, assistantTurn(blocks), { itemId })]);
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call":
      case "web_search_call":
      case "tool_search_call": {
        const name = toolName(type, payload);
        const input = toolInput(type, payload);
        return toolCall(line, "response_item", type, name, input, callId ?? itemId, itemId);
      }
      case "function_call_output":
      case "custom_tool_call_output":
      case "tool_search_output": {
        const raw = type === "tool_search_output" ? payload["tools"] : payload["output"];
        const id = callId ?? itemId;
        const name =
          (id ? callNames.get(id) : undefined) ?? (type === "tool_search_output" ? "tool_search" : undefined);
        return toolResult(line, "response_item", type, toolOutput(raw, name), id, itemId);
      }
      case "image_generation_call": {
        const prompt = str(payload["revised_prompt"]);
        const blocks: TranscriptBlock[] = [
          { type: "tool_call", name: "image_generation", input: prompt ? { revised_prompt: prompt } : {} },
          { type: "image", mediaType: "image/png" },
        ];
        return emit([turnRecord(line, "response_item", type, assistantTurn(blocks), { itemId })]);
      }
      case "agent_message": {
        // Inter-agent message (author → recipient); its encrypted items are dropped.
        const text = splitContentItems(arr(payload["content"])).text.trim();
        if (!text) return emit([countSkip("agent_message:empty")]);
        const author = str(payload["author"]);
        const turn: TranscriptTurn = {
          role: "context",
          blocks: [{ type: "context", label: author ? `agent_message:${author}` : "agent_message", text }],
          isCompactionSummary: false,
        };
        return emit([turnRecord(line, "response_item", type, turn, { itemId })]);
      }
      case "ghost_snapshot":
      case "compaction":
      case "compaction_summary":
        return emit([countSkip(type)]);
      default:
        return emit([countSkip(`unknown:response_item:${type}`)]);
    }
  };

  const responseMessage = (
    line: JsonObject,
    payload: JsonObject,
    itemId: string | undefined,
  ): CodexRecord[] => {
    const role = str(payload["role"]) ?? "";
    const content = arr(payload["content"]);
    const itemIds = ids(itemId, undefined);
    if (role === "assistant") {
      const blocks: TranscriptBlock[] = [];
      for (const part of content) {
        if (!isRecord(part)) continue;
        const partType = str(part["type"]);
        if ((partType === "output_text" || partType === "input_text") && typeof part["text"] === "string") {
          if (part["text"].length > 0) blocks.push({ type: "text", text: part["text"] });
        } else if (partType === "refusal" && typeof part["refusal"] === "string") {
          blocks.push({ type: "text", text: part["refusal"] });
        } else if (partType === "input_image" || partType === "output_image") {
          blocks.push(imageBlock(part["image_url"]));
        }
      }
      if (blocks.length === 0) return emit([countSkip("message:empty")]);
      const record = turnRecord(line, "response_item", "message", assistantTurn(blocks), itemIds);
      return offerResponseMessage("assistant", record, textOf(blocks));
    }

    const kinds = arr(obj(payload["internal_chat_message_metadata_passthrough"])["content_item_kinds"]);
    const kindsAligned = kinds.length === content.length;
    const injectedRole = role !== "user"; // developer, system
    const context: TranscriptBlock[] = [];
    const user: TranscriptBlock[] = [];
    content.forEach((part, index) => {
      if (!isRecord(part)) return;
      const partType = str(part["type"]);
      const kind = kindsAligned ? str(kinds[index]) : undefined;
      if (partType === "input_image") {
        (injectedRole || (kind !== undefined && !USER_KINDS.has(kind)) ? context : user).push(
          imageBlock(part["image_url"]),
        );
        return;
      }
      const text = typeof part["text"] === "string" ? part["text"] : undefined;
      if (text === undefined || text.trim().length === 0) return;
      if (injectedRole) {
        context.push({ type: "context", label: kind ?? codexInjectedLabel(text) ?? role, text });
      } else if (kind !== undefined && kind !== "user.text") {
        context.push({ type: "context", label: kind, text });
      } else if (IMAGE_WRAPPER.test(text)) {
        return;
      } else {
        const label = kind === "user.text" ? undefined : codexInjectedLabel(text);
        if (label) context.push({ type: "context", label, text });
        else user.push({ type: "text", text });
      }
    });

    if (context.length === 0 && user.length === 0) return emit([countSkip("message:empty")]);
    const out: CodexRecord[] = [];
    if (context.length > 0) {
      const turn: TranscriptTurn = { role: "context", blocks: context, isCompactionSummary: false };
      out.push(...emit([turnRecord(line, "response_item", "message", turn, itemIds)]));
    }
    if (user.length > 0) {
      const record = turnRecord(line, "response_item", "message", userTurn(user), itemIds);
      out.push(...offerResponseMessage("user", record, textOf(user)));
    }
    return out;
  };

  // ------------------------------------------------------------ tools

  const toolCall = (
    line: JsonObject,
    layer: CodexLayer,
    item: string,
    name: string,
    input: unknown,
    callId: string | undefined,
    itemId: string | undefined,
  ): CodexRecord[] => {
    if (callId) {
      if (calls.has(`call:${callId}`)) return emit([countSkip("duplicate-call")]);
      calls.add(`call:${callId}`);
      callNames.set(callId, name);
      const written = codexWrite(name, input);
      if (written) writes.set(callId, written);
    }
    const turn = assistantTurn([{ type: "tool_call", name, input }]);
    return emit([turnRecord(line, layer, item, turn, ids(itemId, callId))]);
  };

  const toolResult = (
    line: JsonObject,
    layer: CodexLayer,
    item: string,
    block: TranscriptBlock[],
    callId: string | undefined,
    itemId: string | undefined,
  ): CodexRecord[] => {
    let blocks = block;
    if (callId) {
      if (calls.has(`result:${callId}`)) return emit([countSkip("duplicate-result")]);
      calls.add(`result:${callId}`);
      const written = writes.get(callId);
      if (written) {
        writes.delete(callId);
        blocks = [writtenCall(written), ...block];
      }
    }
    const turn: TranscriptTurn = { role: "tool", blocks, isCompactionSummary: false };
    return emit([turnRecord(line, layer, item, turn, ids(itemId, callId))]);
  };

  /** CommandExecution items and exec_command_end events: one call and one result. */
  const command = (
    line: JsonObject,
    item: string,
    data: JsonObject,
    callId: string | undefined,
  ): CodexRecord[] => {
    const name = (callId ? callNames.get(callId) : undefined) ?? "shell";
    const cmd = data["command"];
    const cwd = str(data["cwd"]);
    const input = { command: scrubBinary(cmd ?? ""), ...(cwd ? { cwd } : {}) };
    const out = toolCall(line, "event_msg", item, name, input, callId, undefined);
    const exitCode = num(data["exit_code"]);
    const status = str(data["status"]);
    const stdout = typeof data["stdout"] === "string" ? data["stdout"] : "";
    const stderr = typeof data["stderr"] === "string" ? data["stderr"] : "";
    const output =
      typeof data["aggregated_output"] === "string"
        ? data["aggregated_output"]
        : typeof data["formatted_output"] === "string"
          ? data["formatted_output"]
          : [stdout, stderr].filter(Boolean).join("\n");
    const isError = status === "failed" || status === "declined";
    const block: TranscriptBlock = {
      type: "tool_result",
      name,
      ...(isError ? { isError: true } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      output: scrubBinary(output),
    };
    out.push(...toolResult(line, "event_msg", item, [block], callId, undefined));
    return out;
  };

  // ------------------------------------------------------------ event_msg

  const eventMsg = (line: JsonObject): CodexRecord[] => {
    const payload = obj(line["payload"]);
    const type = str(payload["type"]) ?? "";
    switch (type) {
      case "user_message": {
        const message = typeof payload["message"] === "string" ? payload["message"] : "";
        const kind = str(payload["kind"]);
        const images = [...arr(payload["images"]), ...arr(payload["local_images"])];
        if (kind && kind !== "plain" && kind !== "user") {
          if (!message.trim()) return emit([countSkip("user_message:empty")]);
          const turn: TranscriptTurn = {
            role: "context",
            blocks: [{ type: "context", label: kind, text: message }],
            isCompactionSummary: false,
          };
          return emit([turnRecord(line, "event_msg", type, turn)]);
        }
        const blocks: TranscriptBlock[] = message.trim() ? [{ type: "text", text: message }] : [];
        for (const image of images) blocks.push(imageBlock(image));
        if (blocks.length === 0) return emit([countSkip("user_message:empty")]);
        return offerEventMessage("user", turnRecord(line, "event_msg", type, userTurn(blocks)), message);
      }
      case "agent_message": {
        const message = typeof payload["message"] === "string" ? payload["message"] : "";
        if (!message.trim()) return emit([countSkip("agent_message:empty")]);
        const record = turnRecord(line, "event_msg", type, assistantTurn([{ type: "text", text: message }]));
        return offerEventMessage("assistant", record, message);
      }
      case "item_completed":
        return itemCompleted(line, payload);
      case "exec_command_end":
        return command(line, type, payload, str(payload["call_id"]));
      case "thread_name_updated": {
        // Another thread's name (a fork's replay of its parent) is not this thread's; one
        // without thread_id is taken.
        if (lineThread(line) === "other") return emit([countSkip("other-thread")]);
        const title = str(payload["thread_name"])?.trim();
        if (!title) return emit([countSkip("thread_name_updated:empty")]);
        return emit([{ type: "title", title, at: lineTime(line) }]);
      }
      case "task_started": {
        const turnId = str(payload["turn_id"]);
        if (turnId) state.turnId = turnId;
        return emit([countSkip(type)]);
      }
      case "error": {
        const message = str(payload["message"]);
        if (!message) return emit([countSkip("error:empty")]);
        return emit([turnRecord(line, "event_msg", type, systemTurn(`Error: ${message}`))]);
      }
      case "turn_aborted": {
        const reason = str(payload["reason"]);
        return emit([
          turnRecord(line, "event_msg", type, systemTurn(`Turn aborted${reason ? ` (${reason})` : ""}.`)),
        ]);
      }
      case "agent_reasoning":
      case "agent_reasoning_raw_content":
      case "patch_apply_end":
      case "mcp_tool_call_end":
      case "web_search_end":
      case "view_image_tool_call":
      case "image_generation_end":
      case "dynamic_tool_call_request":
      case "dynamic_tool_call_response":
        return emit([countSkip(`event-duplicate:${type}`)]);
      default:
        return emit([countSkip(`event_msg:${type || "?"}`)]);
    }
  };

  /** A fork's replayed UserMessage/AgentMessage: its response_item twin is replay too. */
  const replayedMessage = (itemType: string, item: JsonObject): void => {
    const kind: Kind | undefined =
      itemType === "UserMessage" ? "user" : itemType === "AgentMessage" ? "assistant" : undefined;
    if (!kind) return;
    state.eventLayer[kind] = true;
    const text = splitContentItems(arr(item["content"])).text;
    const pending = state.pending;
    if (pending && pending.kind === kind && pending.normalized === compareKey(text)) state.pending = null;
  };

  const itemCompleted = (line: JsonObject, payload: JsonObject): CodexRecord[] => {
    const item = obj(payload["item"]);
    const itemType = str(item["type"]) ?? "?";
    const label = `item_completed:${itemType}`;
    const threadId = str(payload["thread_id"])?.toLowerCase();
    if (threadId && state.threadId && threadId !== state.threadId) {
      if (state.replay) replayedMessage(itemType, item);
      return emit([countSkip("other-thread")]);
    }
    const itemId = str(item["id"]);
    const itemIds = ids(itemId, undefined);
    switch (itemType) {
      case "UserMessage": {
        const blocks: TranscriptBlock[] = [];
        for (const part of arr(item["content"])) {
          if (!isRecord(part)) continue;
          const partType = str(part["type"]);
          if (partType === "text" && typeof part["text"] === "string") {
            if (part["text"].trim()) blocks.push({ type: "text", text: part["text"] });
          } else if (partType === "image" || partType === "localImage" || partType === "local_image") {
            blocks.push(imageBlock(part["url"] ?? part["image_url"] ?? part["path"]));
          }
        }
        if (blocks.length === 0) return emit([countSkip(`${label}:empty`)]);
        const record = turnRecord(line, "event_msg", label, userTurn(blocks), itemIds);
        return offerEventMessage("user", record, textOf(blocks));
      }
      case "AgentMessage": {
        const text = splitContentItems(arr(item["content"])).text;
        if (!text.trim()) return emit([countSkip(`${label}:empty`)]);
        const record = turnRecord(line, "event_msg", label, assistantTurn([{ type: "text", text }]), itemIds);
        return offerEventMessage("assistant", record, text);
      }
      case "CommandExecution":
        return command(line, label, item, itemId);
      default:
        // Reasoning, Plan, FileChange, McpToolCall, Extension, DynamicToolCall,
        // CollabAgentToolCall: echoes of response_items. SubAgentActivity, Sleep: lifecycle.
        return emit([countSkip(`event-duplicate:${label}`)]);
    }
  };

  // ------------------------------------------------------------ session_meta, turn_context, compacted

  const sessionMeta = (line: JsonObject): CodexRecord[] => {
    const meta = readSessionMeta(obj(line["payload"]), lineTime(line));
    if (!meta) return emit([countSkip("session_meta:invalid")]);
    state.firstMeta ??= meta;
    const own =
      state.threadId === null ? state.meta === null : meta.threadId.toLowerCase() === state.threadId;
    if (!own || state.meta !== null)
      return emit([countSkip(own ? "session_meta:repeat" : "session_meta:other-thread")]);
    state.meta = meta;
    if (meta.cwd && state.cwd === null) state.cwd = meta.cwd;
    if (meta.forkedFromId && recordsItemCompleted(meta.cliVersion)) state.replay = true;
    return emit([{ type: "meta", meta }]);
  };

  const turnContext = (line: JsonObject): CodexRecord[] => {
    const payload = obj(line["payload"]);
    const collaboration = obj(payload["collaboration_mode"]);
    const model =
      str(payload["model"]) ?? str(obj(collaboration["settings"])["model"]) ?? str(collaboration["model"]);
    if (model) state.model = model;
    const cwd = str(payload["cwd"]);
    if (cwd) state.cwd = cwd;
    const turnId = str(payload["turn_id"]);
    if (turnId) state.turnId = turnId;
    return emit([countSkip("turn_context")]);
  };

  const compacted = (line: JsonObject): CodexRecord[] => {
    const message = str(obj(line["payload"])["message"])?.trim();
    if (!message) return emit([countSkip("compacted:empty")]);
    const turn: TranscriptTurn = {
      role: "system",
      blocks: [{ type: "text", text: message }],
      isCompactionSummary: true,
    };
    return emit([turnRecord(line, "compacted", "compacted", turn)]);
  };

  // ------------------------------------------------------------ the parser

  const dispatch = (line: JsonObject): CodexRecord[] => {
    const type = str(line["type"]) ?? "";
    switch (type) {
      case "session_meta":
        return sessionMeta(line);
      case "turn_context":
        return turnContext(line);
      case "response_item":
        return responseItem(line);
      case "event_msg":
        return eventMsg(line);
      case "compacted":
        return compacted(line);
      case "world_state":
      case "token_usage_record":
      case "inter_agent_communication":
      case "inter_agent_communication_metadata":
        return emit([countSkip(type)]);
      default:
        return emit([countSkip(`unknown:${type || "?"}`)]);
    }
  };

  /** Marks a fork's possible replay (see "Fork replay"); `line` is null at flush. */
  const replayVerdict = (line: JsonObject | null, records: CodexRecord[]): CodexRecord[] => {
    if (!state.replay) return records;
    const thread = line ? lineThread(line) : undefined;
    if (thread === "own") {
      state.replay = false;
      return [{ type: "replay", verdict: "own" }, ...records];
    }
    const out = records.map((r): CodexRecord =>
      r.type === "turn" || r.type === "title" ? { ...r, provisional: true } : r,
    );
    if (thread === "other") out.push({ type: "replay", verdict: "parent" });
    return out;
  };

  /** "own" or "other" when the line names a thread: a session_meta, item_completed or thread_name_updated. */
  const lineThread = (line: JsonObject): "own" | "other" | undefined => {
    const payload = obj(line["payload"]);
    const type = str(line["type"]);
    let id: string | undefined;
    if (type === "session_meta") id = str(payload["id"]) ?? str(payload["session_id"]);
    else if (type === "event_msg") {
      const event = str(payload["type"]);
      if (event === "item_completed" || event === "thread_name_updated") id = str(payload["thread_id"]);
    }
    // Thread ids are UUIDs (§2.1); anything else (a trimmed placeholder) names no thread.
    if (!id || !state.threadId || !THREAD_ID.test(id)) return undefined;
    if (id.toLowerCase() !== state.threadId) return "other";
    // The own session_meta is no evidence: it starts the replay.
    return type === "session_meta" ? undefined : "own";
  };

  const counted = (records: CodexRecord[]): CodexRecord[] => {
    for (const r of records) if (r.type === "turn") state.turns++;
    return records;
  };

  const sync = (): void => {
    state.calls = calls.toJSON();
    state.callNames = callNames.toJSON();
    state.writes = writes.toJSON();
    state.released = { user: released.user.toJSON(), assistant: released.assistant.toJSON() };
  };

  return {
    push(line) {
      state.lines++;
      const record = parseJsonObjectLine(line);
      let out: CodexRecord[];
      if (!record) {
        out = emit([countSkip(line.trim().length === 0 ? "blank" : "malformed")]);
      } else {
        try {
          out = dispatch(record);
        } catch {
          // Defensive: a mapper bug must cost one line, not the file.
          out = emit([countSkip("mapper-error")]);
        }
      }
      return counted(replayVerdict(record ?? null, out));
    },
    flush() {
      return counted(replayVerdict(null, release()));
    },
    get meta() {
      return state.meta ?? state.firstMeta ?? undefined;
    },
    get stats() {
      return { lines: state.lines, turns: state.turns, skipped: { ...state.skipped } };
    },
    snapshot() {
      sync();
      return structuredClone(state);
    },
  };
}
