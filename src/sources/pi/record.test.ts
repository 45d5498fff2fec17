import { describe, expect, it } from "vitest";
import { mapPiLine } from "./record.js";

/** pi 0.7x session entries, one per line. */
const entry = (type: string, fields: Record<string, unknown>, id = "a1b2c3d4") =>
  JSON.stringify({ type, id, parentId: null, timestamp: "2026-12-04T17:22:59.101Z", ...fields });
const at = Date.parse("2026-12-04T17:22:59.101Z");

describe("pi session lines", () => {
  it("take the project from the header, the model from model_change and a title from session_info", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "0199", timestamp: "x", cwd: "/w/app" });
    expect(mapPiLine(header)).toEqual({ type: "skip", facts: { cwd: "/w/app" } });
    const fork = JSON.stringify({
      type: "session",
      id: "0199b",
      cwd: "/w/app",
      parentSession: "/h/.pi/agent/sessions/--w-app--/2026-12-04T17-22-59-065Z_0199a.jsonl",
    });
    expect(mapPiLine(fork)).toEqual({ type: "skip", facts: { cwd: "/w/app", parent: "0199a" } });
    expect(mapPiLine(entry("model_change", { provider: "p", modelId: "m-1" }))).toEqual({
      type: "skip",
      facts: { model: "m-1" },
    });
    expect(mapPiLine(entry("session_info", { name: " auth store " }))).toEqual({
      type: "skip",
      facts: { title: "auth store" },
    });
    expect(mapPiLine(entry("thinking_level_change", { thinkingLevel: "off" }))).toEqual({ type: "skip" });
  });

  it("map user, assistant and tool result messages", () => {
    const user = entry("message", { message: { role: "user", content: [{ type: "text", text: "hi" }] } });
    expect(mapPiLine(user)).toEqual({
      type: "record",
      key: "a1b2c3d4",
      at,
      turn: { role: "user", blocks: [{ type: "text", text: "hi" }], isCompactionSummary: false },
    });
    const assistant = entry("message", {
      message: {
        role: "assistant",
        model: "m-1",
        stopReason: "toolUse",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "running" },
          { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } },
        ],
      },
    });
    expect(mapPiLine(assistant)).toMatchObject({
      type: "record",
      model: "m-1",
      turn: {
        role: "assistant",
        blocks: [
          { type: "thinking", text: "hmm" },
          { type: "text", text: "running" },
          { type: "tool_call", name: "bash", input: { command: "ls" } },
        ],
      },
    });
    const result = entry("message", {
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "bash",
        isError: true,
        content: [{ type: "text", text: "tail of output" }],
        details: { fullOutputPath: "/tmp/pi-bash-1.log" },
      },
    });
    expect(mapPiLine(result)).toMatchObject({
      turn: {
        role: "tool",
        blocks: [{ type: "tool_result", name: "bash", isError: true, output: "tail of output" }],
      },
    });
  });

  it("keep a command the person ran with ! as a call and its output", () => {
    const line = entry("message", {
      message: { role: "bashExecution", command: "make", output: "boom", exitCode: 2 },
    });
    expect(mapPiLine(line)).toMatchObject({
      turn: {
        role: "tool",
        blocks: [
          { type: "tool_call", name: "bash", input: { command: "make" } },
          { type: "tool_result", name: "bash", isError: true, exitCode: 2, output: "boom" },
        ],
      },
    });
  });

  it("read compaction summaries as system turns and extension messages as context", () => {
    expect(mapPiLine(entry("compaction", { summary: "earlier: chose postgres" }))).toMatchObject({
      turn: {
        role: "system",
        isCompactionSummary: true,
        blocks: [{ type: "text", text: "earlier: chose postgres" }],
      },
    });
    expect(mapPiLine(entry("custom_message", { customType: "todo", content: "buy milk" }))).toMatchObject({
      turn: { role: "context", blocks: [{ type: "context", label: "todo", text: "buy milk" }] },
    });
    expect(mapPiLine(entry("custom", { customType: "x", data: {} }))).toEqual({ type: "skip" });
    expect(mapPiLine("not json")).toEqual({ type: "malformed" });
  });
});
