import { describe, expect, it } from "vitest";
import { continueTimes, continueTitle, mapContinueHistory } from "./record.js";

// A session in Continue CLI 1.5's format, written for these tests.
const session = {
  sessionId: "s1",
  title: "Untitled Session",
  workspaceDirectory: "/w/app",
  history: [
    {
      message: { role: "user", content: "run the build" },
      contextItems: [{ name: "README.md", content: "readme text" }],
    },
    {
      message: {
        role: "assistant",
        content: "running it",
        toolCalls: [
          {
            id: "c1",
            type: "function",
            function: { name: "Bash", arguments: '{"command":"npm run build"}' },
          },
        ],
        usage: { model: "model-x" },
      },
      contextItems: [],
      toolCallStates: [
        {
          toolCallId: "c1",
          status: "done",
          output: [{ content: "(previous output truncated: 3 lines)\n\nok", name: "Tool Result" }],
        },
      ],
    },
    {
      message: { role: "assistant", content: [{ type: "text", text: "all good" }, { type: "imageUrl" }] },
      contextItems: [],
    },
    { message: { role: "weird" } },
  ],
};

describe("Continue history", () => {
  const { items, skipped } = mapContinueHistory(session);

  it("maps a prompt with its attached context items as context", () => {
    expect(items[0]!.turn).toEqual({
      role: "user",
      blocks: [
        { type: "context", label: "README.md", text: "readme text" },
        { type: "text", text: "run the build" },
      ],
      isCompactionSummary: false,
    });
  });

  it("puts each call and its result from toolCallStates side by side in the assistant's turn", () => {
    expect(items[1]!.turn.blocks).toEqual([
      { type: "text", text: "running it" },
      { type: "tool_call", name: "Bash", input: { command: "npm run build" } },
      { type: "tool_result", name: "Bash", output: "(previous output truncated: 3 lines)\n\nok" },
    ]);
    expect(items[1]!.model).toBe("model-x");
  });

  it("reads content parts, counts an unknown role as skipped, and keeps history indexes as keys", () => {
    expect(items[2]!.turn.blocks).toEqual([{ type: "text", text: "all good" }, { type: "image" }]);
    expect(items.map((i) => i.index)).toEqual([0, 1, 2]);
    expect(skipped).toBe(1);
  });

  it("treats the placeholder title as none, and dates item i at the creation time plus i ms", () => {
    expect(continueTitle(session)).toBeNull();
    expect(continueTitle({ title: "Fix the build" })).toBe("Fix the build");
    expect([0, 1, 2].map((i) => continueTimes(5000, i))).toEqual([5000, 5001, 5002]);
  });
});
