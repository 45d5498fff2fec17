import { describe, expect, it } from "vitest";
import { TranscriptTurn, type TranscriptBlock } from "../core/transcript.js";
import { BASE64_PLACEHOLDER, projectTranscriptTurn, type ProjectionMode } from "./index.js";

function turn(
  role: TranscriptTurn["role"],
  blocks: TranscriptBlock[],
  isCompactionSummary = false,
): TranscriptTurn {
  return TranscriptTurn.parse({ role, blocks, isCompactionSummary });
}
const search = (t: TranscriptTurn) => projectTranscriptTurn(t, "search");
const read = (t: TranscriptTurn) => projectTranscriptTurn(t, "read");

describe("projectTranscriptTurn: text and reasoning", () => {
  it("keeps user and assistant text, indexable", () => {
    const u = search(
      turn("user", [{ type: "text", text: "Please fix the  flaky test\n\n\n\nin auth.spec.ts" }]),
    );
    expect(u).toEqual({
      text: "Please fix the flaky test\n\nin auth.spec.ts",
      truncated: false,
      indexable: true,
      isCompactionSummary: false,
    });
    const a = search(turn("assistant", [{ type: "text", text: "Fixed: the mock was not reset." }]));
    expect(a.text).toBe("Fixed: the mock was not reset.");
    expect(a.indexable).toBe(true);
  });

  it("drops thinking / reasoning", () => {
    for (const mode of ["search", "read"] as ProjectionMode[]) {
      const r = projectTranscriptTurn(
        turn("assistant", [
          { type: "thinking", text: "REASONING_SECRET" },
          { type: "text", text: "Answer." },
        ]),
        mode,
      );
      expect(r.text).toBe("Answer.");
    }
    const onlyThinking = search(turn("assistant", [{ type: "thinking", text: "REASONING_SECRET" }]));
    expect(onlyThinking).toMatchObject({ text: "", indexable: false });
  });

  it("a search text is the read text without the read-only lines the projection wrote, never content shaped like them", () => {
    const ok = turn("tool", [
      { type: "tool_result", name: "Bash", output: "3 passed" },
      { type: "image", mediaType: "image/png" },
    ]);
    expect(read(ok).text).toBe("[result: Bash ok]\n3 passed\n[image: image/png]");
    expect(search(ok).text).toBe("3 passed");
    const caption = "Maria: Glad you're alright.\n[image: a photo of a tattoo with a quote on it]";
    const prose = turn("user", [{ type: "text", text: caption }]);
    expect(search(prose).text).toBe(caption);
    const both = turn("tool", [{ type: "tool_result", name: "Bash", output: "[context]\ndone" }]);
    expect(search(both).text).toBe("[context]\ndone");
  });

  it("does not interpret Dyad markup in transcript text", () => {
    const r = search(turn("assistant", [{ type: "text", text: "Use <dyad-write path=x> tags." }]));
    expect(r.text).toBe("Use <dyad-write path=x> tags.");
  });
});

describe("projectTranscriptTurn: tool calls", () => {
  it("Bash: tool name and the command line, cut to a short bound", () => {
    const r = search(
      turn("assistant", [
        {
          type: "tool_call",
          name: "Bash",
          input: { command: "npm test -- auth", description: "Run auth tests" },
        },
      ]),
    );
    expect(r.text).toBe("[tool: Bash — npm test -- auth — Run auth tests]");
    expect(r.indexable).toBe(true);

    const long = search(
      turn("assistant", [
        { type: "tool_call", name: "Bash", input: { command: `echo ${"x".repeat(5000)}` } },
      ]),
    );
    expect(long.text.length).toBeLessThan(240);
    expect(long.text).toMatch(/^\[tool: Bash — echo x+…\]$/);

    const heredoc = search(
      turn("assistant", [
        {
          type: "tool_call",
          name: "Bash",
          input: { command: "cat > a.ts <<'EOF'\nconst HEREDOC_SECRET = 1;\nEOF" },
        },
      ]),
    );
    expect(heredoc.text).toBe("[tool: Bash — cat > a.ts <<'EOF' …]");
  });

  it("Edit/Write/Read: file paths only, never contents or edit strings", () => {
    const r = search(
      turn("assistant", [
        {
          type: "tool_call",
          name: "Edit",
          input: { file_path: "src/a.ts", old_string: "OLD_SECRET", new_string: "NEW_SECRET" },
        },
        { type: "tool_call", name: "Write", input: { file_path: "src/b.ts", content: "CONTENT_SECRET" } },
        { type: "tool_call", name: "read", input: { filePath: "/repo/c.ts" } },
        {
          type: "tool_call",
          name: "NotebookEdit",
          input: { notebook_path: "n.ipynb", new_source: "CELL_SECRET" },
        },
        { type: "tool_call", name: "Grep", input: { pattern: "TODO", path: "src" } },
        {
          type: "tool_call",
          name: "Task",
          input: { description: "Find auth code", prompt: "PROMPT_SECRET" },
        },
      ]),
    );
    expect(r.text).toBe(
      [
        "[tool: Edit — src/a.ts]",
        "[tool: Write — src/b.ts]",
        "[tool: read — /repo/c.ts]",
        "[tool: NotebookEdit — n.ipynb]",
        "[tool: Grep — src — TODO]",
        "[tool: Task — Find auth code]",
      ].join("\n"),
    );
  });

  it("Codex: JSON-string arguments and shell arrays", () => {
    const r = search(
      turn("assistant", [
        { type: "tool_call", name: "exec_command", input: '{"cmd":"echo fixture","workdir":"/tmp"}' },
        { type: "tool_call", name: "shell", input: '{"command":["bash","-lc","rg -n auth src"]}' },
        { type: "tool_call", name: "shell", input: { command: ["ls", "-la"] } },
        { type: "tool_call", name: "update_plan", input: '{"plan":[{"step":"PLAN_SECRET"}]}' },
        { type: "tool_call", name: "weird", input: "not json NOT_JSON_SECRET" },
      ]),
    );
    expect(r.text).toBe(
      [
        "[tool: exec_command — echo fixture]",
        "[tool: shell — rg -n auth src]",
        "[tool: shell — ls -la]",
        "[tool: update_plan]",
        "[tool: weird]",
      ].join("\n"),
    );
  });

  it("apply_patch: the names of the patched files, never the patch", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/app.ts",
      "@@",
      "-PATCH_OLD_SECRET",
      "+PATCH_NEW_SECRET",
      "*** Add File: src/new.ts",
      "+ADDED_SECRET",
      "*** Delete File: src/old.ts",
      "*** End Patch",
    ].join("\n");
    const custom = search(turn("assistant", [{ type: "tool_call", name: "apply_patch", input: patch }]));
    expect(custom.text).toBe("[tool: apply_patch — src/app.ts, src/new.ts, src/old.ts]");
    const viaShell = search(
      turn("assistant", [
        { type: "tool_call", name: "shell", input: { command: ["apply_patch", patch] } },
        {
          type: "tool_call",
          name: "shell",
          input: JSON.stringify({ command: ["bash", "-lc", `apply_patch <<'EOF'\n${patch}\nEOF`] }),
        },
      ]),
    );
    expect(viaShell.text).toBe(
      "[tool: shell — src/app.ts, src/new.ts, src/old.ts]\n[tool: shell — src/app.ts, src/new.ts, src/old.ts]",
    );
  });
});

describe("projectTranscriptTurn: tool results", () => {
  it("an ok result keeps a preview of its output: searchable, and after `[result: ok]` in read mode", () => {
    const t = turn("tool", [{ type: "tool_result", name: "Bash", exitCode: 0, output: "OUTPUT_TEXT\nmore" }]);
    expect(search(t)).toMatchObject({ text: "OUTPUT_TEXT\nmore", indexable: true });
    expect(read(t).text).toBe("[result: Bash ok]\nOUTPUT_TEXT\nmore");
    const unnamed = turn("user", [{ type: "tool_result", output: [{ type: "text", text: "OUTPUT_TEXT" }] }]);
    expect(read(unnamed).text).toBe("[result: ok]\nOUTPUT_TEXT");
    const empty = turn("tool", [{ type: "tool_result", name: "Bash", exitCode: 0, output: "  \n" }]);
    expect(search(empty)).toMatchObject({ text: "", indexable: false });
    expect(read(empty).text).toBe("[result: Bash ok]");
  });

  it("an error becomes exit code and first line, then the rest of the output's preview", () => {
    const t = turn("tool", [
      {
        type: "tool_result",
        name: "Bash",
        exitCode: 2,
        output: "ls: cannot access 'x': No such file\nBODY\nmore",
      },
    ]);
    for (const r of [search(t), read(t)]) {
      expect(r.text).toBe("[error: Bash exit 2 — ls: cannot access 'x': No such file]\nBODY\nmore");
    }
    expect(search(t).indexable).toBe(true);
  });

  it("error flag without exit code; Claude tool_use_error wrapper; long first line cut, then previewed", () => {
    const r = search(
      turn("user", [
        {
          type: "tool_result",
          isError: true,
          output: [{ type: "text", text: "<tool_use_error>File does not exist.</tool_use_error>" }],
        },
        { type: "tool_result", isError: true, output: `E${"r".repeat(1000)}\nBODY` },
      ]),
    );
    const [first, second, third, fourth] = r.text.split("\n") as [string, string, string, string];
    expect(first).toBe("[error — File does not exist.]");
    expect(second.length).toBeLessThan(220);
    expect(third).toBe(`E${"r".repeat(1000)}`);
    expect(fourth).toBe("BODY");
  });

  it("Codex shell output: the exit code comes from the header when not given; the header is not previewed", () => {
    const output =
      "Chunk ID: 5d5975\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 2\nOutput:\nnpm ERR! missing script: tset\nBODY\n";
    expect(search(turn("tool", [{ type: "tool_result", output }])).text).toBe(
      "[error: exit 1 — npm ERR! missing script: tset]\nBODY",
    );
    const ok = "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nOUTPUT_TEXT\n";
    expect(search(turn("tool", [{ type: "tool_result", output: ok }])).text).toBe("OUTPUT_TEXT");
    const headerOnly = "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n";
    expect(search(turn("tool", [{ type: "tool_result", output: headerOnly }])).text).toBe("");
  });

  it("a tool turn's text is tool output: previewed like a result", () => {
    const t = turn("tool", [{ type: "text", text: "Exit code 0\ncompiled 12 files" }]);
    expect(search(t)).toMatchObject({ text: "compiled 12 files", indexable: true });
  });

  it("images in an output are skipped, injected spans dropped", () => {
    const r = search(
      turn("tool", [
        {
          type: "tool_result",
          name: "Read",
          output: [
            { type: "image", source: { type: "base64", data: "IMAGE_SECRET" } },
            {
              type: "text",
              text: "1→export const x = 1;\n<system-reminder>REMINDER_SECRET</system-reminder>",
            },
          ],
        },
      ]),
    );
    expect(r.text).toBe("1→export const x = 1;");
  });
});

describe("projectTranscriptTurn: images, base64, injected context", () => {
  it("never indexes images or base64", () => {
    const r = search(
      turn("user", [
        {
          type: "text",
          text: "Here is a screenshot data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        },
        { type: "image", mediaType: "image/png" },
      ]),
    );
    expect(r.text).toBe(`Here is a screenshot data:image/png;base64,${BASE64_PLACEHOLDER}`);
    expect(read(turn("user", [{ type: "image", mediaType: "image/png" }])).text).toBe("[image: image/png]");
    expect(search(turn("user", [{ type: "image" }]))).toMatchObject({ text: "", indexable: false });
  });

  it("context blocks and context/system turns are not indexable", () => {
    const withContext = turn("user", [{ type: "context", label: "AGENTS.md", text: "CONTEXT_SECRET rules" }]);
    expect(search(withContext)).toMatchObject({ text: "", indexable: false });
    expect(read(withContext).text).toBe("[context: AGENTS.md]");

    const contextTurn = turn("context", [
      { type: "text", text: "<environment_context>CWD_SECRET</environment_context>" },
    ]);
    expect(search(contextTurn)).toMatchObject({ text: "", indexable: false });
    expect(read(contextTurn)).toMatchObject({ text: "[context]", indexable: false });

    const systemTurn = turn("system", [{ type: "text", text: "API Error: 529 overloaded" }]);
    expect(search(systemTurn)).toMatchObject({ text: "API Error: 529 overloaded", indexable: false });
  });

  it("strips system reminders and other injected spans from user text", () => {
    const r = search(
      turn("user", [
        {
          type: "text",
          text: "<system-reminder>\nREMINDER_SECRET\n</system-reminder>\nWhy does login fail?<environment_context><cwd>/secret</cwd></environment_context>",
        },
      ]),
    );
    expect(r.text).toBe("Why does login fail?");
  });

  it("keeps a slash command's name and arguments, drops local command output", () => {
    const r = search(
      turn("user", [
        {
          type: "text",
          text: "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>the auth PR</command-args>",
        },
        { type: "text", text: "<local-command-stdout>STDOUT_SECRET</local-command-stdout>" },
      ]),
    );
    expect(r.text).toBe("[command: /review the auth PR]");
  });

  it("drops Codex AGENTS.md injections and an unclosed injected span", () => {
    const agents = search(
      turn("user", [
        {
          type: "text",
          text: "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nAGENTS_SECRET\n</INSTRUCTIONS>",
        },
      ]),
    );
    expect(agents).toMatchObject({ text: "", indexable: false });
    const unclosed = search(
      turn("user", [{ type: "text", text: "Hi <system-reminder>REMINDER_SECRET and the rest" }]),
    );
    expect(unclosed.text).toBe("Hi");
  });
});

describe("projectTranscriptTurn: compaction summaries", () => {
  it("keeps the summary text, flags it and indexes it", () => {
    const r = search(
      turn(
        "user",
        [
          {
            type: "text",
            text: "This session is being continued from a previous conversation. We chose Postgres.",
          },
        ],
        true,
      ),
    );
    expect(r).toEqual({
      text: "This session is being continued from a previous conversation. We chose Postgres.",
      truncated: false,
      indexable: true,
      isCompactionSummary: true,
    });
    const asSystem = search(turn("system", [{ type: "text", text: "Summary: chose Postgres." }], true));
    expect(asSystem).toMatchObject({ indexable: true, isCompactionSummary: true });
  });
});
