import { describe, expect, it } from "vitest";
import { clineSessionOf, mapClineMessages, mapClineMeta } from "./record.js";

// Lines in Cline CLI 3.0's format, written for these tests.
const doc = {
  version: 1,
  sessionId: "1700000000000_abcde",
  messages: [
    {
      id: "u1",
      role: "user",
      content: [{ type: "text", text: '<user_input mode="act">pick a database</user_input>' }],
      ts: 1000,
    },
    {
      id: "msg_a1",
      role: "assistant",
      content: [
        { type: "thinking", thinking: "private reasoning" },
        { type: "text", text: "recording it" },
        { type: "tool_use", id: "call_1", name: "run_commands", input: { commands: ["cat notes.txt"] } },
      ],
      ts: 1100,
      modelInfo: { id: "model-x", provider: "p" },
    },
    {
      id: "msg_t1",
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "call_1",
          name: "run_commands",
          content: [
            { query: "cat notes.txt", result: "Decision: PostgreSQL\n", success: true },
            { query: "false", result: "", success: false },
          ],
        },
      ],
      ts: 1200,
    },
    { id: "msg_s1", role: "user", content: [{ type: "text", text: "[SYSTEM] keep going" }] },
    { id: "empty", role: "assistant", content: [] },
  ],
};

describe("Cline messages", () => {
  const { messages, skipped } = mapClineMessages(doc);

  it("unwraps a typed prompt, keeps thinking and tool calls apart, and dates by ts", () => {
    expect(messages[0]).toEqual({
      key: "u1",
      at: 1000,
      model: null,
      turn: { role: "user", blocks: [{ type: "text", text: "pick a database" }], isCompactionSummary: false },
    });
    expect(messages[1]!.turn.blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool_call"]);
    expect(messages[1]!.model).toBe("model-x");
  });

  it("maps a tool_result message to a tool turn holding each command's output, failed when one failed", () => {
    expect(messages[2]!.turn).toEqual({
      role: "tool",
      blocks: [
        { type: "tool_result", name: "run_commands", isError: true, output: "Decision: PostgreSQL\n\n" },
      ],
      isCompactionSummary: false,
    });
  });

  it("keeps other user text as injected context, never as the user's words, and skips empty messages", () => {
    expect(messages[3]!.turn.role).toBe("context");
    expect(messages[3]!.turn.blocks).toEqual([
      { type: "context", label: "cline", text: "[SYSTEM] keep going" },
    ]);
    expect(messages[3]!.at).toBeNull();
    expect(messages).toHaveLength(4);
    expect(skipped).toBe(1);
  });

  it("reads the session id and the metadata file", () => {
    expect(clineSessionOf(doc)).toBe("1700000000000_abcde");
    expect(
      mapClineMeta({
        cwd: "/w/app",
        model: "m",
        prompt: "x".repeat(200),
        started_at: "2026-12-04T17:23:22.351Z",
        parent_session_id: "p1",
        metadata: { git: { branch: "main" } },
      }),
    ).toEqual({
      cwd: "/w/app",
      title: "x".repeat(120),
      model: "m",
      branch: "main",
      parent: "p1",
      startedAt: Date.parse("2026-12-04T17:23:22.351Z"),
    });
    expect(mapClineMeta(null)).toMatchObject({ cwd: null, title: null });
  });
});
