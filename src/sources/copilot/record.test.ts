import { describe, expect, it } from "vitest";
import type { LineMemory } from "../files/line-transcript.js";
import { mapCopilotLine } from "./record.js";

/** One events.jsonl line as Copilot CLI 1.0.x writes it. */
const event = (type: string, data: Record<string, unknown>, id = "e1") =>
  JSON.stringify({ type, data, id, timestamp: "2026-12-04T17:22:53.388Z", parentId: null });

describe("Copilot CLI events.jsonl lines", () => {
  it("take the project, branch and model from session.start and session.resume", () => {
    const start = event("session.start", {
      sessionId: "s",
      selectedModel: "gpt-x",
      context: { cwd: "/w/app/sub", gitRoot: "/w/app", branch: "main", headCommit: "abc" },
    });
    expect(mapCopilotLine(start, {})).toEqual({
      type: "skip",
      facts: { cwd: "/w/app", branch: "main", model: "gpt-x" },
    });
    const resume = event("session.resume", { context: { cwd: "/w/app", branch: "feature" } });
    expect(mapCopilotLine(resume, {})).toEqual({ type: "skip", facts: { cwd: "/w/app", branch: "feature" } });
  });

  it("keep the prompt as typed, not the datetime-tagged copy", () => {
    const line = event("user.message", {
      content: "pick a database",
      transformedContent: "<current_datetime>2026-12-04</current_datetime>\n\npick a database",
    });
    expect(mapCopilotLine(line, {})).toEqual({
      type: "record",
      key: "e1",
      at: Date.parse("2026-12-04T17:22:53.388Z"),
      turn: { role: "user", blocks: [{ type: "text", text: "pick a database" }], isCompactionSummary: false },
    });
  });

  it("map an assistant message's text, reasoning and tool requests", () => {
    const line = event("assistant.message", {
      model: "gpt-x",
      content: "running it",
      reasoningText: "secret plan",
      toolRequests: [{ toolCallId: "c1", name: "bash", arguments: { command: "ls" }, type: "function" }],
    });
    const mapped = mapCopilotLine(line, {});
    expect(mapped).toMatchObject({ type: "record", model: "gpt-x" });
    expect(mapped.type === "record" && mapped.turn.blocks).toEqual([
      { type: "thinking", text: "secret plan" },
      { type: "text", text: "running it" },
      { type: "tool_call", name: "bash", input: { command: "ls" } },
    ]);
  });

  it("name a tool result from its execution_start and keep its exit code and failure", () => {
    const memory: LineMemory = {};
    const start = event("tool.execution_start", { toolCallId: "c1", toolName: "bash", arguments: {} });
    expect(mapCopilotLine(start, memory)).toEqual({ type: "skip" });
    const done = event(
      "tool.execution_complete",
      {
        toolCallId: "c1",
        success: false,
        shellExecution: { exitCode: 2 },
        result: { content: "no such file", detailedContent: "diff --git" },
      },
      "e2",
    );
    const mapped = mapCopilotLine(done, memory);
    expect(mapped.type === "record" && mapped.turn).toEqual({
      role: "tool",
      blocks: [{ type: "tool_result", name: "bash", isError: true, exitCode: 2, output: "no such file" }],
      isCompactionSummary: false,
    });
    expect(memory).toEqual({});
  });

  it("skip the system prompt, turn markers and accounting; count a broken line as malformed", () => {
    for (const type of ["system.message", "assistant.turn_start", "session.usage_record", "session.shutdown"])
      expect(mapCopilotLine(event(type, { content: "x" }), {})).toEqual({ type: "skip" });
    expect(mapCopilotLine('{"type": "user.mess', {})).toEqual({ type: "malformed" });
  });
});
