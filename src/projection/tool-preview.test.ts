import { describe, expect, it } from "vitest";
import { TranscriptTurn, type TranscriptBlock } from "../core/transcript.js";
import { SEARCH_PROJECTION_MAX_BYTES } from "./bounds.js";
import { projectTranscriptTurn, projectTranscriptTurnBoth } from "./index.js";
import {
  headTailPreview,
  omittedMarker,
  previewText,
  TOOL_PREVIEW_HEAD_BYTES,
  TOOL_PREVIEW_SLACK_BYTES,
  TOOL_PREVIEW_TAIL_BYTES,
  TOOL_PREVIEW_TURN_BYTES,
  writtenPreviewText,
  writtenText,
} from "./tool-preview.js";
import { utf8ByteLength } from "./utf8.js";

function turn(role: TranscriptTurn["role"], blocks: TranscriptBlock[]): TranscriptTurn {
  return TranscriptTurn.parse({ role, blocks, isCompactionSummary: false });
}
const search = (t: TranscriptTurn) => projectTranscriptTurn(t, "search");
const read = (t: TranscriptTurn) => projectTranscriptTurn(t, "read");

/** A 111 KB build log: 2,000 lines "build-log line 00001 …", the last one its summary. */
function buildLog(): string {
  const lines: string[] = [];
  for (let i = 1; i < 2000; i++) {
    const n = String(i).padStart(5, "0");
    lines.push(`build-log line ${n} compiling module pkg${i % 37}/unit${n}.ts ok`);
  }
  lines.push("build-log line 02000 BUILD SUCCEEDED: 1999 modules, 0 errors, 3 warnings");
  return `${lines.join("\n")}\n`;
}

describe("tool output previews", () => {
  const log = buildLog();

  it("a 111 KB build log: its head and its summary line are searchable, its middle is not", () => {
    expect(log.length).toBeGreaterThan(100_000);
    const t = turn("tool", [{ type: "tool_result", name: "Bash", exitCode: 0, output: log }]);
    const s = search(t);
    expect(s.indexable).toBe(true);
    expect(s.truncated).toBe(false);
    expect(s.text).toContain("build-log line 00001 compiling");
    expect(s.text).toContain("build-log line 00010 compiling");
    expect(s.text).toContain("build-log line 02000 BUILD SUCCEEDED: 1999 modules, 0 errors, 3 warnings");
    expect(s.text).not.toContain("build-log line 00500");
    expect(s.text).not.toContain("build-log line 01000");
    // The marker is for readers: its count and words are not indexed.
    expect(s.text).not.toContain("omitted");
    expect(utf8ByteLength(s.text)).toBeLessThanOrEqual(
      TOOL_PREVIEW_HEAD_BYTES + TOOL_PREVIEW_TAIL_BYTES + TOOL_PREVIEW_SLACK_BYTES,
    );
    // Cut at line breaks: every kept line is whole.
    for (const kept of s.text.split("\n")) {
      expect(kept).toMatch(/^build-log line \d{5} (compiling module \S+ ok|BUILD SUCCEEDED.*)$/);
    }
    const r = read(t);
    expect(r.text.startsWith("[result: Bash ok]\nbuild-log line 00001 compiling")).toBe(true);
    expect(r.text).toMatch(/ ok\n\[… \d+ lines omitted …\]\nbuild-log line \d{5} /);
    expect(r.text).toContain("BUILD SUCCEEDED");
    expect(r.text).not.toContain("build-log line 00500");
    // One pass gives both: the search text is the read one without its read-only lines.
    expect(projectTranscriptTurnBoth(t)).toEqual({ search: s, read: r, searchFromRead: true });
  });

  it("the same log carried as a tool turn's text, and inside a structured output", () => {
    for (const t of [
      turn("tool", [{ type: "text", text: log }]),
      turn("tool", [{ type: "tool_result", output: { stdout: log, stderr: "", interrupted: false } }]),
      turn("tool", [{ type: "tool_result", output: [{ type: "text", text: log }] }]),
    ]) {
      const s = search(t).text;
      expect(s).toContain("build-log line 00010");
      expect(s).toContain("BUILD SUCCEEDED");
      expect(s).not.toContain("build-log line 00500");
    }
  });

  it("counts omitted lines; a middle without line breaks is counted in characters", () => {
    const p = headTailPreview(log)!;
    const kept = previewText(p).trimEnd().split("\n").length - 1; // minus the marker line
    expect(p.omitted!.lines + kept).toBe(2000);
    expect(omittedMarker(p.omitted!)).toBe(`[… ${p.omitted!.lines} lines omitted …]`);
    const oneLine = headTailPreview("x".repeat(10_000))!;
    expect(oneLine.omitted).toMatchObject({ lines: 0, capped: false });
    expect(omittedMarker(oneLine.omitted!)).toBe(`[… ${oneLine.omitted!.chars} characters omitted …]`);
    expect(oneLine.head.length + oneLine.omitted!.chars + oneLine.tail.length).toBe(10_000);
    expect(headTailPreview("short\noutput")).toEqual({
      head: "short\noutput",
      tail: "",
      omitted: null,
      bytes: 12,
    });
    expect(headTailPreview(" \n\t ")).toBeUndefined();
  });

  it("a 50 MB output costs little and stays bounded", () => {
    const huge = "0123456789 abcdefghij\n".repeat(2_500_000);
    const start = performance.now();
    const t = turn("tool", [{ type: "tool_result", output: huge }]);
    const s = search(t);
    const r = read(t);
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(r.text).toMatch(/\n\[… over \d+ lines omitted …\]\n/);
    expect(utf8ByteLength(s.text)).toBeLessThan(4 * 1024);
  });

  it("previews of one turn share a budget, so the turn's own text stays within the search bound", () => {
    const blocks: TranscriptBlock[] = [{ type: "text", text: "I ran the six suites." }];
    for (let k = 0; k < 6; k++) {
      blocks.push({ type: "tool_call", name: "bash", input: { command: `npm test -- suite${k}` } });
      blocks.push({ type: "tool_result", name: "bash", exitCode: 0, output: log });
    }
    const s = search(turn("assistant", blocks));
    expect(s.truncated).toBe(false);
    expect(s.text.startsWith("I ran the six suites.")).toBe(true);
    expect(s.text).toContain("[tool: bash — npm test -- suite5]");
    expect(utf8ByteLength(s.text)).toBeLessThan(TOOL_PREVIEW_TURN_BYTES + 1024);
    expect(utf8ByteLength(s.text)).toBeLessThanOrEqual(SEARCH_PROJECTION_MAX_BYTES);
  });

  it("normalises preview text like any text: control characters, base64 runs", () => {
    const base64 =
      "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw".repeat(3);
    const s = search(turn("tool", [{ type: "tool_result", output: `a\u0000b\u0007c\n${base64}\nend` }]));
    expect(s.text).toBe("a b c\n[base64 omitted]\nend");
  });

  it("drops an injected reminder even when the preview's cut falls inside it", () => {
    const reminder = `<system-reminder>\n${"REMINDER_TEXT ".repeat(150)}\n</system-reminder>\n`;
    const output = `${log}${reminder}tail after`;
    const s = search(turn("tool", [{ type: "tool_result", name: "Read", output }]));
    expect(s.text).not.toContain("REMINDER_TEXT");
    expect(s.text).toContain("build-log line 00001");
    expect(s.text.endsWith("tail after")).toBe(true);
  });

  it("an error keeps its summary; the rest of a long error output is previewed head and tail", () => {
    const s = search(
      turn("tool", [
        { type: "tool_result", name: "Bash", exitCode: 1, output: `Exit code 1\nerror TS2304: x\n${log}` },
      ]),
    );
    expect(s.text.startsWith("[error: Bash exit 1 — error TS2304: x]\nbuild-log line 00001")).toBe(true);
    expect(s.text).toContain("BUILD SUCCEEDED");
    expect(s.text).not.toContain("build-log line 00500");
  });
});

describe("written file content", () => {
  const adr = [
    "# ADR 0007: connection pooling",
    "",
    "We put pgbouncer in transaction mode in front of Postgres.",
    "Prepared statements are disabled in the driver.",
  ].join("\n");
  const ok: TranscriptBlock = {
    type: "tool_result",
    name: "Write",
    output: "File created successfully at: docs/adr/0007.md",
  };

  it("a Write's content is searchable in the tool record that holds its result", () => {
    const t = turn("tool", [
      { type: "tool_call", name: "Write", input: { file_path: "docs/adr/0007.md", content: adr } },
      ok,
    ]);
    const s = search(t);
    expect(s.indexable).toBe(true);
    expect(s.text).toContain("pgbouncer");
    expect(s.text.startsWith("[tool: Write — docs/adr/0007.md]\n# ADR 0007: connection pooling")).toBe(true);
    expect(read(t).text).toContain("[result: Write ok]\nFile created successfully");
  });

  it("a call alone (the assistant's request) or a failed write shows no content", () => {
    const call: TranscriptBlock = {
      type: "tool_call",
      name: "Write",
      input: { file_path: "docs/adr/0007.md", content: adr },
    };
    expect(search(turn("assistant", [call])).text).toBe("[tool: Write — docs/adr/0007.md]");
    const failed = search(
      turn("tool", [call, { type: "tool_result", isError: true, output: "Permission denied" }]),
    );
    expect(failed.text).not.toContain("pgbouncer");
  });

  it("opencode: write and edit calls with their results in the assistant's own record", () => {
    const s = search(
      turn("assistant", [
        { type: "text", text: "Writing the ADR." },
        { type: "tool_call", name: "write", input: { filePath: "/p/adr.md", content: adr } },
        { type: "tool_result", name: "write", output: "Wrote file successfully." },
        {
          type: "tool_call",
          name: "edit",
          input: { filePath: "/p/a.ts", oldString: "OLD_SECRET", newString: "const pool = createPool();" },
        },
        { type: "tool_result", name: "edit", output: "Edit applied successfully." },
      ]),
    );
    expect(s.text).toContain("pgbouncer");
    expect(s.text).toContain("const pool = createPool();");
    expect(s.text).not.toContain("OLD_SECRET");
  });

  it("edits: new strings only; MultiEdit's every edit; never old strings", () => {
    expect(writtenText("Edit", { file_path: "a", old_string: "OLD", new_string: "NEW" })).toBe("NEW");
    expect(
      writtenText("MultiEdit", {
        file_path: "a",
        edits: [
          { old_string: "OLD1", new_string: "NEW1" },
          { old_string: "OLD2", new_string: "NEW2" },
        ],
      }),
    ).toBe("NEW1\nNEW2");
    expect(writtenText("mcp__fs__write_file", { path: "a", content: "C" })).toBe("C");
    expect(writtenText("Bash", { command: "echo hi", content: "NOT_WRITTEN" })).toBeUndefined();
    expect(writtenText("Task", { prompt: "PROMPT" })).toBeUndefined();
  });

  it("a Codex patch: its added lines, wherever the patch sits; never removed or context lines", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/adr/0007.md",
      "+# ADR 0007",
      "+Use pgbouncer.",
      "*** Update File: src/db.ts",
      "@@ export function connect",
      " CONTEXT_LINE",
      "-REMOVED_LINE",
      "+const pool = createPool();",
      "*** End Patch",
    ].join("\n");
    const added = "# ADR 0007\nUse pgbouncer.\nconst pool = createPool();";
    expect(writtenText("apply_patch", patch)).toBe(added);
    expect(writtenText("shell", { command: ["apply_patch", patch] })).toBe(added);
    expect(writtenText("exec_command", { cmd: `apply_patch <<'EOF'\n${patch}\nEOF` })).toBe(added);
    expect(writtenText("patch", { patchText: patch })).toBe(added);
    const s = search(
      turn("tool", [
        { type: "tool_call", name: "apply_patch", input: patch },
        {
          type: "tool_result",
          name: "apply_patch",
          output: "Success. Updated the following files:\nA docs/adr/0007.md",
        },
      ]),
    ).text;
    expect(s).toContain("Use pgbouncer.");
    expect(s).not.toContain("REMOVED_LINE");
    expect(s).not.toContain("CONTEXT_LINE");
  });

  it("a large written file: head and tail only", () => {
    const body = buildLog();
    const s = search(
      turn("tool", [
        { type: "tool_call", name: "Write", input: { file_path: "build.log", content: body } },
        { type: "tool_result", name: "Write", output: "ok" },
      ]),
    ).text;
    expect(s).toContain("build-log line 00010");
    expect(s).toContain("BUILD SUCCEEDED");
    expect(s).not.toContain("build-log line 00500");
  });

  it("a source's carried preview comes back unchanged; its marker line is read-only", () => {
    const preview = writtenPreviewText("Write", { file_path: "build.log", content: buildLog() })!;
    expect(utf8ByteLength(preview)).toBeLessThanOrEqual(
      TOOL_PREVIEW_HEAD_BYTES + TOOL_PREVIEW_TAIL_BYTES + TOOL_PREVIEW_SLACK_BYTES,
    );
    expect(writtenText("apply_patch", { path: "build.log", content: preview })).toBe(preview);
    expect(previewText(headTailPreview(preview)!)).toBe(preview);
    const t = turn("tool", [
      { type: "tool_call", name: "apply_patch", input: { path: "build.log", content: preview } },
      { type: "tool_result", name: "apply_patch", output: "Done!" },
    ]);
    expect(search(t).text).not.toContain("omitted");
    expect(search(t).text).toContain("BUILD SUCCEEDED");
    expect(read(t).text).toMatch(/\[… \d+ lines omitted …\]/);
  });
});

describe("what stays dropped", () => {
  it("thinking, injected context and images", () => {
    for (const mode of ["search", "read"] as const) {
      const r = projectTranscriptTurn(
        turn("tool", [
          { type: "thinking", text: "REASONING_SECRET" },
          { type: "context", label: "reminder", text: "CONTEXT_SECRET" },
          { type: "image", mediaType: "image/png" },
          {
            type: "tool_result",
            name: "Read",
            output: [{ type: "image", source: { data: "IMAGE_SECRET" } }],
          },
        ]),
        mode,
      );
      expect(r.text).not.toMatch(/REASONING_SECRET|CONTEXT_SECRET|IMAGE_SECRET/);
    }
    const contextTurn = search(turn("context", [{ type: "text", text: "AGENTS_SECRET" }]));
    expect(contextTurn).toMatchObject({ text: "", indexable: false });
  });
});
