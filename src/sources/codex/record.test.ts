import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TranscriptTurn } from "../../core/transcript.js";
import { projectTranscriptTurn } from "../../projection/index.js";
import {
  codexThreadIdFromPath,
  createCodexRolloutParser,
  toolOutput,
  type CodexRecord,
  type CodexTurnRecord,
} from "./record.js";

const THREAD = "01a0f21c-5c40-7f72-9aa9-ef0b43570680";
const TURN = "01a0f21c-5c46-7ce2-9754-e82e9310a043";
const TS = "2026-09-30T11:39:00.055Z";

const l = (type: string, payload: Record<string, unknown>, timestamp: unknown = TS): string =>
  JSON.stringify({ timestamp, type, payload });

const meta = (id: string, extra: Record<string, unknown> = {}) =>
  l("session_meta", {
    id,
    cwd: "/work/proj",
    cli_version: "0.158.0",
    originator: "codex_exec",
    source: "exec",
    ...extra,
  });
const turnContext = (model: string, turnId = TURN) =>
  l("turn_context", { turn_id: turnId, cwd: "/work/proj", model });
const responseUser = (text: string, kinds?: string[], turnId = TURN) =>
  l("response_item", {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
    internal_chat_message_metadata_passthrough: {
      turn_id: turnId,
      ...(kinds ? { content_item_kinds: kinds } : {}),
    },
  });
const responseAssistant = (text: string, turnId = TURN) =>
  l("response_item", {
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text }],
    internal_chat_message_metadata_passthrough: { turn_id: turnId },
  });
const itemCompleted = (item: Record<string, unknown>, turnId = TURN, threadId = THREAD) =>
  l("event_msg", {
    type: "item_completed",
    thread_id: threadId,
    turn_id: turnId,
    started_at_ms: 1790768340055,
    completed_at_ms: 1790768340055,
    item,
  });

function run(lines: string[], threadId: string | null = THREAD) {
  const parser = createCodexRolloutParser(threadId);
  const records: CodexRecord[] = [];
  for (const line of lines) records.push(...parser.push(line));
  records.push(...parser.flush());
  const turns = records.filter((r): r is CodexTurnRecord => r.type === "turn");
  for (const t of turns) expect(TranscriptTurn.safeParse(t.turn).success).toBe(true);
  return { parser, records, turns };
}

const summary = (t: CodexTurnRecord) => `${t.turn.role}:${t.layer}:${t.item}`;

describe("session_meta", () => {
  it("takes the session_meta whose id matches the file's thread id among several", () => {
    const parent = "019fc8be-0000-7000-8000-00000000aaaa";
    const { parser, records } = run([
      meta(parent, { cwd: "/parent", source: "cli" }),
      meta(THREAD, {
        cwd: "/child",
        git: { branch: "feature/x", commit_hash: "abc" },
        source: {
          subagent: { thread_spawn: { parent_thread_id: parent, depth: 1, agent_nickname: "scout" } },
        },
        session_id: parent,
      }),
      meta(THREAD, { cwd: "/again" }),
    ]);
    expect(parser.meta).toMatchObject({
      threadId: THREAD,
      cwd: "/child",
      gitBranch: "feature/x",
      gitCommit: "abc",
      cliVersion: "0.158.0",
      originator: "codex_exec",
      source: "subagent",
      subagentKind: "thread_spawn",
      parentThreadId: parent,
      agentNickname: "scout",
      depth: 1,
      sessionId: parent,
    });
    expect(records.filter((r) => r.type === "meta")).toHaveLength(1);
    expect(parser.stats.skipped).toMatchObject({ "session_meta:other-thread": 1, "session_meta:repeat": 1 });
  });

  it("reads the legacy top-level parent_thread_id and falls back to the first meta without a thread id", () => {
    const { parser } = run([meta("t-1", { parent_thread_id: "t-0" })], null);
    expect(parser.meta).toMatchObject({ threadId: "t-1", parentThreadId: "t-0" });
  });

  it("extracts the thread id from rollout file names", () => {
    expect(
      codexThreadIdFromPath(
        "/h/.codex/sessions/2026/09/30/rollout-2026-09-30T08-39-00-01a0f21c-5c40-7f72-9aa9-ef0b43570680.jsonl",
      ),
    ).toBe(THREAD);
    expect(codexThreadIdFromPath(`rollout-2026-09-30T08-39-00-${THREAD.toUpperCase()}.jsonl.zst`)).toBe(
      THREAD,
    );
    expect(codexThreadIdFromPath("small.jsonl")).toBeNull();
  });
});

describe("one layer per kind of content", () => {
  it("0.158 order (response_item first, then item_completed): one prompt, from item_completed", () => {
    const { turns, parser } = run([
      meta(THREAD),
      turnContext("gpt-5.5"),
      responseUser("<environment_context>\n  <cwd>/work/proj</cwd>\n</environment_context>", [
        "environments.environment_context",
      ]),
      responseUser("run echo fixture please", ["user.text"]),
      itemCompleted({
        type: "UserMessage",
        id: "u1",
        content: [{ type: "text", text: "run echo fixture please" }],
      }),
      itemCompleted({
        type: "AgentMessage",
        id: "msg_1",
        content: [{ type: "Text", text: "The command printed fixture." }],
      }),
      responseAssistant("The command printed fixture."),
    ]);
    expect(turns.map(summary)).toEqual([
      "context:response_item:message",
      "user:event_msg:item_completed:UserMessage",
      "assistant:event_msg:item_completed:AgentMessage",
    ]);
    expect(turns[1]).toMatchObject({ turnId: TURN, model: "gpt-5.5", cwd: "/work/proj", at: Date.parse(TS) });
    expect(turns[0]!.turn.blocks[0]).toMatchObject({
      type: "context",
      label: "environments.environment_context",
    });
    expect(parser.stats.skipped["duplicate-layer"]).toBe(2);
    expect(parser.stats.skipped["message:empty"]).toBeUndefined();
    expect(parser.stats.turns).toBe(3);
  });

  it("0.146 order (user_message event first): the event wins and the layer stays elected", () => {
    const { turns } = run([
      meta(THREAD),
      l("event_msg", { type: "user_message", message: "List the files", images: [], local_images: [] }),
      l("event_msg", { type: "task_started", turn_id: TURN }),
      responseUser("List the files"),
      responseAssistant("Found 2 files."),
      l("event_msg", { type: "agent_message", message: "Found 2 files.", phase: "output" }),
      // A later turn: the response_item copies are dropped without waiting.
      responseUser("and now?", undefined, "t-2"),
      l("event_msg", { type: "user_message", message: "and now?" }),
    ]);
    expect(turns.map(summary)).toEqual([
      "user:event_msg:user_message",
      "assistant:event_msg:agent_message",
      "user:event_msg:user_message",
    ]);
  });

  it("files without an event layer keep their response_item turns, each once", () => {
    const { turns } = run([
      meta(THREAD),
      responseUser("first question"),
      responseAssistant("first answer"),
      responseUser("first question", undefined, "t-2"), // asked again in a new turn: kept
      responseAssistant("second answer", "t-2"),
    ]);
    expect(turns.map((t) => `${t.turn.role}:${JSON.stringify(t.turn.blocks[0])}`)).toEqual([
      'user:{"type":"text","text":"first question"}',
      'assistant:{"type":"text","text":"first answer"}',
      'user:{"type":"text","text":"first question"}',
      'assistant:{"type":"text","text":"second answer"}',
    ]);
  });

  it("never drops a held message whose event copy differs: worst case both are kept", () => {
    const { turns } = run([
      responseAssistant("commentary only written to response_item"),
      itemCompleted({ type: "AgentMessage", content: [{ type: "Text", text: "the final answer" }] }),
    ]);
    expect(turns.map((t) => `${t.layer}:${JSON.stringify(t.turn.blocks[0])}`)).toEqual([
      'response_item:{"type":"text","text":"commentary only written to response_item"}',
      'event_msg:{"type":"text","text":"the final answer"}',
    ]);
  });

  it("matches the two layers' copies whatever their whitespace", () => {
    const { turns } = run([
      responseUser("line one\n\nline two "),
      l("event_msg", { type: "user_message", message: "line one\nline two" }),
    ]);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.layer).toBe("event_msg");
  });

  it("a held response_item prompt is released before the next turn, keeping line order", () => {
    const { records } = run([
      responseUser("do it"),
      l("event_msg", { type: "token_count", info: null }),
      l("response_item", {
        type: "function_call",
        name: "shell",
        arguments: '{"command":["ls"]}',
        call_id: "c1",
      }),
    ]);
    const turns = records.filter((r): r is CodexTurnRecord => r.type === "turn");
    expect(turns.map((t) => t.item)).toEqual(["message", "function_call"]);
  });

  it("recognises the event copy of a prompt released across a read batch", () => {
    const parser = createCodexRolloutParser(THREAD);
    const first = [...parser.push(responseUser("hello there")), ...parser.flush()];
    expect(first.filter((r) => r.type === "turn")).toHaveLength(1);
    // The reader checkpoints, restarts from the snapshot, and reads on.
    const resumed = createCodexRolloutParser(THREAD, parser.snapshot());
    const second = resumed.push(
      itemCompleted({ type: "UserMessage", content: [{ type: "text", text: "hello there" }] }),
    );
    expect(second).toEqual([{ type: "skip", reason: "duplicate-layer" }]);
  });

  it("filters injected blocks out of response_item user messages by content_item_kinds or tag", () => {
    const { turns } = run([
      l("response_item", {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "# AGENTS.md instructions for /work/proj\n\nBe terse." },
          { type: "input_text", text: "<turn_aborted>\nThe user interrupted.\n</turn_aborted>" },
          { type: "input_text", text: "<image name=[Image #1]>" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" },
          { type: "input_text", text: "</image>" },
          { type: "input_text", text: "what does this screenshot show?" },
        ],
      }),
      l("response_item", {
        type: "message",
        role: "developer",
        content: [
          { type: "input_text", text: "<permissions instructions>sandboxed</permissions instructions>" },
        ],
      }),
    ]);
    expect(turns.map((t) => t.turn.role)).toEqual(["context", "user", "context"]);
    expect(turns[0]!.turn.blocks.map((b) => (b.type === "context" ? b.label : b.type))).toEqual([
      "agents_md",
      "turn_aborted",
    ]);
    expect(turns[1]!.turn.blocks).toEqual([
      { type: "image", mediaType: "image/png" },
      { type: "text", text: "what does this screenshot show?" },
    ]);
    expect(JSON.stringify(turns)).not.toContain("iVBORw0KGgo");
    expect(turns[2]!.turn.blocks[0]).toMatchObject({ type: "context", label: "permissions instructions" });
  });

  it("maps user_message events of a non-plain kind to context", () => {
    const { turns } = run([
      l("event_msg", {
        type: "user_message",
        message: "<user_instructions>be nice</user_instructions>",
        kind: "user_instructions",
      }),
    ]);
    expect(turns[0]!.turn).toEqual({
      role: "context",
      blocks: [
        {
          type: "context",
          label: "user_instructions",
          text: "<user_instructions>be nice</user_instructions>",
        },
      ],
      isCompactionSummary: false,
    });
  });

  it("skips item_completed events of another thread (fork replays)", () => {
    const { turns, parser } = run([
      itemCompleted(
        { type: "UserMessage", content: [{ type: "text", text: "parent prompt" }] },
        TURN,
        "other-thread",
      ),
    ]);
    expect(turns).toHaveLength(0);
    expect(parser.stats.skipped["other-thread"]).toBe(1);
  });
});

describe("reasoning, tools, compaction, titles", () => {
  it("maps reasoning summaries to thinking and never keeps encrypted_content", () => {
    const { turns, parser } = run([
      l("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "**Planning** the listing" }],
        content: [{ type: "reasoning_text", text: "raw chain" }],
        encrypted_content: "gAAAAABo-secret-ciphertext",
      }),
      l("response_item", { type: "reasoning", summary: [], encrypted_content: "gAAAAABo-only" }),
      l("event_msg", { type: "agent_reasoning", text: "**Planning** the listing" }),
    ]);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.turn.blocks).toEqual([
      { type: "thinking", text: "**Planning** the listing" },
      { type: "thinking", text: "raw chain" },
    ]);
    expect(JSON.stringify(turns)).not.toContain("secret-ciphertext");
    expect(parser.stats.skipped).toMatchObject({
      "reasoning:encrypted-only": 1,
      "event-duplicate:agent_reasoning": 1,
    });
  });

  it("maps function_call (JSON arguments) and custom_tool_call (free text) to tool calls", () => {
    const patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch";
    const { turns } = run([
      l("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: '{"cmd":"echo fixture"}',
        call_id: "c1",
      }),
      l("response_item", { type: "function_call", name: "weird", arguments: "not json", call_id: "c2" }),
      l("response_item", {
        type: "custom_tool_call",
        name: "apply_patch",
        input: patch,
        call_id: "c3",
        status: "completed",
      }),
    ]);
    expect(turns.map((t) => t.turn.blocks[0])).toEqual([
      { type: "tool_call", name: "exec_command", input: { cmd: "echo fixture" } },
      { type: "tool_call", name: "weird", input: "not json" },
      { type: "tool_call", name: "apply_patch", input: patch },
    ]);
    expect(turns.map((t) => t.callId)).toEqual(["c1", "c2", "c3"]);
  });

  it("parses exit codes and output shapes of function_call_output", () => {
    const header =
      "Chunk ID: 5d5975\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 2\nOutput:\nboom\n";
    expect(toolOutput(header, "exec_command")).toEqual([
      { type: "tool_result", name: "exec_command", exitCode: 3, output: header },
    ]);
    expect(
      toolOutput('{"output":"hi\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}', "shell")[0],
    ).toMatchObject({
      exitCode: 0,
    });
    expect(
      toolOutput(
        [
          { type: "input_text", text: "a.txt\n" },
          { type: "input_image", image_url: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ" },
        ],
        undefined,
      ),
    ).toEqual([
      { type: "tool_result", output: "a.txt\n" },
      { type: "image", mediaType: "image/jpeg" },
    ]);
    expect(toolOutput({ content: "denied", success: false }, "shell")).toEqual([
      { type: "tool_result", name: "shell", isError: true, output: "denied" },
    ]);
    expect(toolOutput({ type: "input_text", text: "single object" }, undefined)).toEqual([
      { type: "tool_result", output: "single object" },
    ]);
  });

  it("emits one call and one result per call id across function_call, CommandExecution and output", () => {
    const { turns, parser } = run([
      l("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: '{"cmd":"echo fixture"}',
        call_id: "call_1",
      }),
      itemCompleted({
        type: "CommandExecution",
        id: "call_1",
        command: ["/usr/bin/bash", "-lc", "echo fixture"],
        cwd: "/work/proj",
        exit_code: 0,
        aggregated_output: "fixture\n",
        status: "completed",
      }),
      l("response_item", {
        type: "function_call_output",
        call_id: "call_1",
        output: "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nfixture\n",
      }),
    ]);
    expect(turns.map((t) => `${t.turn.role}:${t.turn.blocks[0]?.type}:${t.layer}`)).toEqual([
      "assistant:tool_call:response_item",
      "tool:tool_result:event_msg",
    ]);
    expect(turns[1]!.turn.blocks[0]).toEqual({
      type: "tool_result",
      name: "exec_command",
      exitCode: 0,
      output: "fixture\n",
    });
    expect(parser.stats.skipped).toMatchObject({ "duplicate-call": 1, "duplicate-result": 1 });
  });

  it("maps a CommandExecution without a function_call (user shell command) to call and result", () => {
    const { turns } = run([
      itemCompleted({
        type: "CommandExecution",
        id: "x1",
        command: "git status",
        exit_code: 128,
        stdout: "",
        stderr: "fatal",
        status: "failed",
      }),
    ]);
    expect(turns.map((t) => t.turn.blocks[0])).toEqual([
      { type: "tool_call", name: "shell", input: { command: "git status" } },
      { type: "tool_result", name: "shell", isError: true, exitCode: 128, output: "fatal" },
    ]);
  });

  it("maps compacted to a compaction summary from message only", () => {
    const { turns, parser } = run([
      l("compacted", {
        message: "Summary: we fixed the parser.",
        replacement_history: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "OLD PROMPT" }] },
        ],
      }),
      l("compacted", { message: "", replacement_history: [] }),
    ]);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.turn).toEqual({
      role: "system",
      blocks: [{ type: "text", text: "Summary: we fixed the parser." }],
      isCompactionSummary: true,
    });
    expect(JSON.stringify(turns)).not.toContain("OLD PROMPT");
    expect(parser.stats.skipped["compacted:empty"]).toBe(1);
  });

  it("maps thread_name_updated to a title", () => {
    const { records } = run([
      l("event_msg", { type: "thread_name_updated", thread_id: THREAD, thread_name: "Fix parser" }),
    ]);
    expect(records).toContainEqual({ type: "title", title: "Fix parser", at: Date.parse(TS) });
  });

  it("counts unknown and malformed lines as skips", () => {
    const { parser } = run([
      "{not json",
      "",
      l("brand_new", {}),
      l("response_item", { type: "future_item" }),
    ]);
    expect(parser.stats).toMatchObject({
      lines: 4,
      turns: 0,
      skipped: { malformed: 1, blank: 1, "unknown:brand_new": 1, "unknown:response_item:future_item": 1 },
    });
  });
});

describe("timestamps", () => {
  it("accepts ISO strings, *_at_ms epoch ms, and epoch seconds or ISO started_at/completed_at", () => {
    const prompt = { type: "UserMessage", content: [{ type: "text", text: "hi" }] };
    const noTs = (payload: Record<string, unknown>) => JSON.stringify({ type: "event_msg", payload });
    const at = (line: string) => run([line]).turns[0]?.at;
    expect(at(itemCompleted(prompt))).toBe(Date.parse(TS));
    expect(at(noTs({ type: "item_completed", completed_at_ms: 1790768340117, item: prompt }))).toBe(
      1790768340117,
    );
    expect(at(noTs({ type: "turn_aborted", reason: "interrupted", completed_at: 1790768340 }))).toBe(
      1790768340000,
    );
    expect(at(noTs({ type: "turn_aborted", completed_at: "2026-08-03T10:48:56.000Z" }))).toBe(
      Date.parse("2026-08-03T10:48:56.000Z"),
    );
    expect(at(l("event_msg", { type: "error", message: "boom" }, "[trimmed for fixture]"))).toBeNull();
  });
});

describe("robustness", () => {
  it("never throws and always yields valid turns on arbitrary payloads", () => {
    const types = ["session_meta", "response_item", "event_msg", "turn_context", "compacted", "x"];
    const subtypes = [
      "message",
      "function_call",
      "function_call_output",
      "item_completed",
      "user_message",
      "reasoning",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.constantFrom(...subtypes),
        fc.jsonValue(),
        (type, sub, value) => {
          const parser = createCodexRolloutParser(null);
          const lines = [
            JSON.stringify({
              type,
              payload: { type: sub, content: value, item: value, output: value, message: value },
            }),
            JSON.stringify({ type, payload: value }),
          ];
          for (const line of lines) {
            for (const r of parser.push(line)) {
              if (r.type === "turn") expect(TranscriptTurn.safeParse(r.turn).success).toBe(true);
            }
          }
          parser.flush();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("fork replay", () => {
  const PARENT = "019fc8be-0000-7000-8000-00000000aaaa";
  const OTHER_TURN = "019fc8be-0000-7000-8000-0000000000b1";
  const user = (text: string, thread: string, turnId = TURN) =>
    itemCompleted({ type: "UserMessage", content: [{ type: "text", text }] }, turnId, thread);
  const agent = (text: string, thread: string, turnId = TURN) =>
    itemCompleted({ type: "AgentMessage", content: [{ type: "Text", text }] }, turnId, thread);
  const name = (thread: string, threadName: string) =>
    l("event_msg", { type: "thread_name_updated", thread_id: thread, thread_name: threadName });
  // 0.158 order: the user's response_item before its event, the agent's event before its response_item.
  const replay = [
    meta(PARENT),
    turnContext("m", OTHER_TURN),
    responseUser("parent prompt", ["user.text"], OTHER_TURN),
    user("parent prompt", PARENT, OTHER_TURN),
    agent("parent answer", PARENT, OTHER_TURN),
    responseAssistant("parent answer", OTHER_TURN),
    name(PARENT, "Parent name"),
  ];
  const own = [turnContext("m"), responseUser("fork prompt", ["user.text"]), user("fork prompt", THREAD)];

  it("holds the replay as provisional, drops it on another thread's id, keeps it on the fork's own", () => {
    const { records } = run([meta(THREAD, { forked_from_id: PARENT }), ...replay, ...own]);
    const kept = records.filter((r) => (r.type === "turn" || r.type === "title") && !r.provisional);
    expect(kept.map((r) => (r.type === "turn" ? summary(r) : r.type))).toEqual([
      "user:event_msg:item_completed:UserMessage",
    ]);
    expect(JSON.stringify(kept)).not.toContain("parent");
    const verdicts = records.filter((r) => r.type === "replay").map((r) => r.verdict);
    expect(verdicts.at(-1)).toBe("own");
    expect(verdicts.slice(0, -1).every((v) => v === "parent")).toBe(true);
    // The replayed response_item copies never reach a verdict as turns.
    const provisional = records.filter((r) => r.type === "turn" && r.provisional);
    expect(provisional).toHaveLength(0);
  });

  it("ignores another thread's name outside forks too; a name without thread_id is taken", () => {
    const { records } = run([
      name(PARENT, "Parent name"),
      l("event_msg", { type: "thread_name_updated", thread_name: "Unnamed thread" }),
    ]);
    expect(records.filter((r) => r.type === "title").map((r) => r.type === "title" && r.title)).toEqual([
      "Unnamed thread",
    ]);
  });

  it("reads a fork whole when its writer predates item_completed (0.146): nothing can tell the replay", () => {
    const { records, turns } = run([
      meta(THREAD, { forked_from_id: PARENT, cli_version: "0.146.0" }),
      ...replay,
      ...own,
    ]);
    expect(records.some((r) => r.type === "replay" || ("provisional" in r && r.provisional))).toBe(false);
    expect(turns.filter((t) => t.turn.role === "user")).toHaveLength(2);
  });
});

describe("written content (apply_patch)", () => {
  const patch = [
    "*** Begin Patch",
    "*** Add File: docs/adr/0007.md",
    "+# ADR 0007: pooling",
    "+We run pgbouncer in transaction mode.",
    "*** Update File: src/db.ts",
    "@@",
    " CONTEXT_SECRET",
    "-REMOVED_SECRET",
    "+const pool = createPool();",
    "*** End Patch",
  ].join("\n");
  const call = (callId: string, input = patch) =>
    l("response_item", {
      type: "custom_tool_call",
      name: "apply_patch",
      input,
      call_id: callId,
      status: "completed",
    });
  const output = (callId: string) =>
    l("response_item", {
      type: "custom_tool_call_output",
      call_id: callId,
      output: "Success. Updated the following files:\nA docs/adr/0007.md\nM src/db.ts\n",
    });
  const search = (t: CodexTurnRecord) => projectTranscriptTurn(t.turn, "search").text;

  it("the result's tool record starts with the call, carrying a preview of the added lines", () => {
    const { turns } = run([call("p1"), output("p1")]);
    expect(turns.map(summary)).toEqual([
      "assistant:response_item:custom_tool_call",
      "tool:response_item:custom_tool_call_output",
    ]);
    expect(turns[1]!.turn.blocks[0]).toEqual({
      type: "tool_call",
      name: "apply_patch",
      input: {
        path: "docs/adr/0007.md, src/db.ts",
        content: "# ADR 0007: pooling\nWe run pgbouncer in transaction mode.\nconst pool = createPool();",
      },
    });
    const text = search(turns[1]!);
    expect(text).toContain("pgbouncer");
    expect(text).toContain("[tool: apply_patch — docs/adr/0007.md, src/db.ts]");
    expect(text).toContain("Success. Updated the following files:");
    expect(text).not.toMatch(/REMOVED_SECRET|CONTEXT_SECRET/);
    // The assistant's record keeps only the call line.
    expect(search(turns[0]!)).toBe("[tool: apply_patch — docs/adr/0007.md, src/db.ts]");
  });

  it("the state carries a bounded preview from the call's read batch to the result's", () => {
    const big = [
      "*** Begin Patch",
      "*** Add File: build.log",
      ...Array.from({ length: 5000 }, (_, i) => `+generated line ${String(i).padStart(5, "0")}`),
      "*** End Patch",
    ].join("\n");
    const parser = createCodexRolloutParser(THREAD);
    parser.push(call("p2", big));
    const state = parser.snapshot();
    expect(JSON.stringify(state.writes).length).toBeLessThan(4 * 1024);
    const resumed = createCodexRolloutParser(THREAD, state);
    const records = [...resumed.push(output("p2")), ...resumed.flush()];
    const tool = records.find((r): r is CodexTurnRecord => r.type === "turn" && r.turn.role === "tool")!;
    const text = search(tool);
    expect(text).toContain("generated line 00010");
    expect(text).toContain("generated line 04999");
    expect(text).not.toContain("generated line 02500");
    expect(projectTranscriptTurn(tool.turn, "read").text).toMatch(/\[… \d+ lines omitted …\]/);
    expect(resumed.snapshot().writes).toEqual([]);
  });

  it("a patch run through a shell command, and the CommandExecution that carries it", () => {
    const { turns } = run([
      l("response_item", {
        type: "function_call",
        name: "shell",
        arguments: JSON.stringify({ command: ["apply_patch", patch] }),
        call_id: "s1",
      }),
      l("response_item", { type: "function_call_output", call_id: "s1", output: "Done!" }),
    ]);
    expect(search(turns[1]!)).toContain("pgbouncer");
  });

  it("a call that writes nothing adds nothing to its result", () => {
    const { turns } = run([
      l("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: '{"cmd":"ls"}',
        call_id: "n1",
      }),
      l("response_item", { type: "function_call_output", call_id: "n1", output: "a.txt\n" }),
    ]);
    expect(turns[1]!.turn.blocks.map((b) => b.type)).toEqual(["tool_result"]);
  });
});
