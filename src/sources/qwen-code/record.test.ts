import { describe, expect, it } from "vitest";
import { TranscriptTurn } from "../../core/transcript.js";
import { parseQwenLine } from "./record.js";

const envelope = {
  parentUuid: null,
  sessionId: "s-1",
  timestamp: "2026-12-04T17:23:05.352Z",
  cwd: "/work/acme",
  version: "0.24.4",
  gitBranch: "main",
};

function turn(value: Record<string, unknown>) {
  const parsed = parseQwenLine(JSON.stringify({ ...envelope, ...value }));
  if (parsed.type !== "turn") throw new Error(`expected a turn, got ${parsed.type}`);
  expect(TranscriptTurn.safeParse(parsed.turn).success).toBe(true);
  return parsed;
}

describe("Qwen Code chat lines", () => {
  it("maps a prompt with its envelope", () => {
    const prompt = turn({
      uuid: "u1",
      type: "user",
      provenance: "real_user",
      message: { role: "user", parts: [{ text: "pick a database" }] },
    });
    expect(prompt).toMatchObject({
      uuid: "u1",
      sessionId: "s-1",
      role: "user",
      cwd: "/work/acme",
      gitBranch: "main",
      at: Date.parse(envelope.timestamp),
    });
    expect(prompt.turn.blocks).toEqual([{ type: "text", text: "pick a database" }]);
  });

  it("maps a reply with a thought and a function call", () => {
    const reply = turn({
      uuid: "a1",
      type: "assistant",
      model: "qwen3-coder",
      message: {
        role: "model",
        parts: [
          { text: "weighing options", thought: true },
          { text: "I'll record it." },
          {
            functionCall: {
              id: "call_1",
              name: "write_file",
              args: { file_path: "notes.txt", content: "PG" },
            },
          },
        ],
      },
    });
    expect(reply).toMatchObject({ role: "assistant", model: "qwen3-coder" });
    expect(reply.turn.blocks).toEqual([
      { type: "thinking", text: "weighing options" },
      { type: "text", text: "I'll record it." },
      { type: "tool_call", name: "write_file", input: { file_path: "notes.txt", content: "PG" } },
    ]);
  });

  it("maps a tool result with its exit code and status", () => {
    const line = (status: string, exitCode: number) =>
      turn({
        uuid: "t1",
        type: "tool_result",
        message: {
          role: "user",
          parts: [
            {
              functionResponse: {
                id: "call_1",
                name: "run_shell_command",
                response: { output: "Command: make\nOutput: ok\nExit Code: 0" },
              },
            },
          ],
        },
        toolCallResult: { callId: "call_1", status, resultDisplay: { type: "shell_result", exitCode } },
      });
    expect(line("success", 0)).toMatchObject({ role: "tool" });
    expect(line("success", 0).turn.blocks).toEqual([
      {
        type: "tool_result",
        name: "run_shell_command",
        exitCode: 0,
        output: "Command: make\nOutput: ok\nExit Code: 0",
      },
    ]);
    expect(line("error", 2).turn.blocks[0]).toMatchObject({ isError: true, exitCode: 2 });
  });

  it("skips system lines and counts broken ones", () => {
    expect(
      parseQwenLine(
        JSON.stringify({
          ...envelope,
          uuid: "s1",
          type: "system",
          subtype: "ui_telemetry",
          systemPayload: {},
        }),
      ),
    ).toEqual({ type: "skip", reason: "ignored" });
    expect(parseQwenLine('{"uuid":"x","type":"user"')).toEqual({ type: "skip", reason: "malformed" });
    expect(
      parseQwenLine(JSON.stringify({ ...envelope, uuid: "u9", type: "user", message: { parts: [] } })),
    ).toEqual({ type: "skip", reason: "ignored" });
  });

  it("tags injected reminders as context, not the person's words", () => {
    const reminder = turn({
      uuid: "u2",
      type: "user",
      message: { role: "user", parts: [{ text: "<system-reminder>plan mode is on</system-reminder>" }] },
    });
    expect(reminder.role).toBe("context");
  });
});
