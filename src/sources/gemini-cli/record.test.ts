import { describe, expect, it } from "vitest";
import { TranscriptTurn } from "../../core/transcript.js";
import { projectTranscriptTurn } from "../../projection/index.js";
import { parseGeminiLine, workspaceOf, type GeminiMessage } from "./record.js";

const AT = "2026-12-04T17:22:43.224Z";

function message(value: Record<string, unknown>): GeminiMessage {
  const parsed = parseGeminiLine(JSON.stringify(value));
  if (parsed.type !== "message") throw new Error(`expected a message, got ${parsed.type}`);
  expect(TranscriptTurn.safeParse(parsed.message.turn).success).toBe(true);
  return parsed.message;
}

const context = (workspace: string) =>
  `<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - ${workspace}\n- **Directory Structure:**\n\n${workspace}/\n└───README.md\n</session_context>`;

describe("Gemini CLI chat log lines", () => {
  it("reads the header and $set patches as operations, not records", () => {
    expect(
      parseGeminiLine(
        JSON.stringify({ sessionId: "s-1", projectHash: "ab", startTime: AT, lastUpdated: AT, kind: "main" }),
      ),
    ).toEqual({ type: "header", sessionId: "s-1", summary: undefined });
    expect(parseGeminiLine(JSON.stringify({ $set: { lastUpdated: AT } }))).toEqual({
      type: "set",
      sessionId: undefined,
      summary: undefined,
      workspace: undefined,
    });
    // A replayed history names the workspace through its session context, and nothing else.
    const replay = parseGeminiLine(
      JSON.stringify({
        $set: {
          messages: [
            { id: "ctx", timestamp: AT, type: "user", content: [{ text: context("/work/acme") }] },
            { id: "m1", timestamp: AT, type: "user", content: [{ text: "decide the database" }] },
          ],
        },
      }),
    );
    expect(replay).toMatchObject({ type: "set", workspace: "/work/acme" });
  });

  it("maps a prompt, a reply with its tool call and the tool's response", () => {
    const prompt = message({ id: "u1", timestamp: AT, type: "user", content: [{ text: "pick a database" }] });
    expect(prompt).toMatchObject({ id: "u1", role: "user", at: Date.parse(AT) });
    expect(prompt.turn.blocks).toEqual([{ type: "text", text: "pick a database" }]);

    const reply = message({
      id: "g1",
      timestamp: AT,
      type: "gemini",
      content: "I'll record it.",
      thoughts: [{ subject: "Plan", description: "write notes" }],
      model: "gemini-3.8-flash",
      toolCalls: [
        {
          id: "run_shell_command_1",
          name: "run_shell_command",
          args: { command: "cat notes.txt" },
          result: [{ functionResponse: { id: "run_shell_command_1", response: { output: "RAW-RESULT" } } }],
          resultDisplay: "RAW-DISPLAY",
          status: "success",
        },
      ],
    });
    expect(reply).toMatchObject({ role: "assistant", model: "gemini-3.8-flash" });
    expect(reply.turn.blocks).toEqual([
      { type: "thinking", text: "Plan: write notes" },
      { type: "text", text: "I'll record it." },
      { type: "tool_call", name: "run_shell_command", input: { command: "cat notes.txt" } },
    ]);
    // The call's own copy of the result is not kept: the next user message holds it.
    expect(JSON.stringify(reply.turn)).not.toContain("RAW-");
    const searched = projectTranscriptTurn(reply.turn, "search");
    expect(searched.text).not.toContain("write notes");

    const result = message({
      id: "u2",
      timestamp: AT,
      type: "user",
      content: [
        {
          functionResponse: {
            id: "run_shell_command_1",
            name: "run_shell_command",
            response: { output: "Output: Decision: PostgreSQL" },
          },
        },
      ],
    });
    expect(result.role).toBe("tool");
    expect(result.turn.blocks).toEqual([
      { type: "tool_result", name: "run_shell_command", output: "Output: Decision: PostgreSQL" },
    ]);
    const failed = message({
      id: "u3",
      timestamp: AT,
      type: "user",
      content: [{ functionResponse: { name: "read_file", response: { error: "no such file" } } }],
    });
    expect(failed.turn.blocks).toEqual([
      { type: "tool_result", name: "read_file", isError: true, output: "no such file" },
    ]);
  });

  it("tags the session context as context and learns the workspace from it", () => {
    const ctx = message({
      id: "c1",
      timestamp: AT,
      type: "user",
      content: [{ text: context("/work/acme") }],
    });
    expect(ctx.role).toBe("context");
    expect(ctx.workspace).toBe("/work/acme");
    expect(ctx.turn.blocks[0]).toMatchObject({ type: "context", label: "session_context" });
    expect(workspaceOf("Workspace Directories:\n  - /elsewhere")).toBeUndefined();
  });

  it("keeps the CLI's own notices as system turns and counts what it cannot read", () => {
    expect(message({ id: "i1", timestamp: AT, type: "info", content: "Request cancelled." }).role).toBe(
      "system",
    );
    expect(parseGeminiLine("{not json")).toEqual({ type: "skip", reason: "malformed" });
    expect(parseGeminiLine(JSON.stringify({ id: "x", type: "gemini", content: "" }))).toEqual({
      type: "skip",
      reason: "ignored",
    });
    expect(parseGeminiLine(JSON.stringify({ id: "x", type: "mystery", content: "hi" }))).toEqual({
      type: "skip",
      reason: "ignored",
    });
  });
});
