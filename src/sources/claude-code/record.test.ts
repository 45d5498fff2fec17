import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TranscriptTurn } from "../../core/transcript.js";
import { projectTranscriptTurn } from "../../projection/index.js";
import {
  createClaudeMerger,
  mergeClaudeRecords,
  parseClaudeLine,
  type ClaudeRecord,
  type ClaudeTurnRecord,
} from "./record.js";

const base = {
  sessionId: "s-1",
  cwd: "/work/proj",
  gitBranch: "main",
  version: "2.1.284",
  isSidechain: false,
  userType: "external",
};

function line(record: Record<string, unknown>): string {
  return JSON.stringify({ ...base, ...record });
}

function turn(record: ClaudeRecord): ClaudeTurnRecord {
  if (record.type !== "turn") throw new Error(`expected a turn, got ${JSON.stringify(record)}`);
  expect(TranscriptTurn.safeParse(record.turn).success).toBe(true);
  return record;
}

function user(uuid: string, content: unknown, extra: Record<string, unknown> = {}): string {
  return line({
    type: "user",
    uuid,
    parentUuid: null,
    timestamp: "2026-09-30T11:37:28.651Z",
    message: { role: "user", content },
    ...extra,
  });
}

function assistant(uuid: string, content: unknown[], extra: Record<string, unknown> = {}): string {
  const { message: messageExtra, ...rest } = extra as { message?: Record<string, unknown> };
  return line({
    type: "assistant",
    uuid,
    parentUuid: "u-1",
    timestamp: "2026-09-30T11:37:29.000Z",
    message: { role: "assistant", model: "claude-sonnet-4-5", content, ...messageExtra },
    ...rest,
  });
}

describe("parseClaudeLine: user lines", () => {
  it("maps a typed string prompt with its envelope", () => {
    const r = turn(parseClaudeLine(user("u-1", "run echo fixture please")));
    expect(r).toMatchObject({
      lineType: "user",
      uuid: "u-1",
      parentUuid: null,
      sessionId: "s-1",
      isSidechain: false,
      at: Date.parse("2026-09-30T11:37:28.651Z"),
      cwd: "/work/proj",
      gitBranch: "main",
      version: "2.1.284",
    });
    expect(r.turn).toEqual({
      role: "user",
      blocks: [{ type: "text", text: "run echo fixture please" }],
      isCompactionSummary: false,
    });
  });

  it("drops base64 image data and keeps only the media type", () => {
    const data =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const raw = user("u-img", [
      { type: "image", source: { type: "base64", media_type: "image/png", data } },
      { type: "text", text: "what is in this picture?" },
    ]);
    const r = turn(parseClaudeLine(raw));
    expect(r.turn.role).toBe("user");
    expect(r.turn.blocks).toEqual([
      { type: "image", mediaType: "image/png" },
      { type: "text", text: "what is in this picture?" },
    ]);
    expect(JSON.stringify(r)).not.toContain(data.slice(0, 24));
  });

  it("treats isMeta lines as context", () => {
    const r = turn(
      parseClaudeLine(
        user("u-meta", [{ type: "text", text: "Caveat: the messages below were generated…" }], {
          isMeta: true,
        }),
      ),
    );
    expect(r.turn.role).toBe("context");
    expect(r.turn.blocks).toEqual([
      { type: "context", label: "meta", text: "Caveat: the messages below were generated…" },
    ]);
  });

  it("treats reminder-only, command and local-command text as context", () => {
    const reminder = turn(
      parseClaudeLine(user("u-r", "<system-reminder>\nToday is 2026-09-30.\n</system-reminder>")),
    );
    expect(reminder.turn).toEqual({
      role: "context",
      blocks: [{ type: "context", label: "system-reminder", text: "Today is 2026-09-30." }],
      isCompactionSummary: false,
    });
    const command = turn(
      parseClaudeLine(
        user(
          "u-c",
          "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
        ),
      ),
    );
    expect(command.turn.role).toBe("context");
    expect(command.turn.blocks.map((b) => b.type === "context" && b.label)).toEqual([
      "command-name",
      "command-message",
      "command-args",
    ]);
    const stdout = turn(
      parseClaudeLine(user("u-o", "<local-command-stdout>Total cost: $0.01</local-command-stdout>")),
    );
    expect(stdout.turn.role).toBe("context");
  });

  it("keeps what was typed after a slash command as the person's words", () => {
    const command = turn(
      parseClaudeLine(
        user(
          "u-a",
          "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>zebracorn login bug</command-args>",
        ),
      ),
    );
    expect(command.turn.role).toBe("user");
    expect(command.turn.blocks.filter((b) => b.type === "text")).toEqual([
      { type: "text", text: "[command: /review zebracorn login bug]" },
    ]);
  });

  it("keeps a prompt's own text and splits an appended reminder into a context block", () => {
    const r = turn(
      parseClaudeLine(
        user("u-mix", "fix the flaky test\n<system-reminder>The user opened a.ts</system-reminder>"),
      ),
    );
    expect(r.turn.role).toBe("user");
    expect(r.turn.blocks).toEqual([
      { type: "context", label: "system-reminder", text: "The user opened a.ts" },
      { type: "text", text: "fix the flaky test" },
    ]);
  });

  it("maps tool results (string and array content, is_error, exit code) as role tool", () => {
    const r = turn(
      parseClaudeLine(
        user("u-t", [
          { type: "tool_result", tool_use_id: "toolu_1", content: "fixture", is_error: false },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: [
              { type: "text", text: "Exit code 2\nls: cannot access" },
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
            ],
            is_error: true,
          },
        ]),
      ),
    );
    expect(r.turn.role).toBe("tool");
    expect(r.toolResultIds).toEqual(["toolu_1", "toolu_2"]);
    expect(r.turn.blocks).toEqual([
      { type: "tool_result", output: "fixture" },
      { type: "tool_result", isError: true, exitCode: 2, output: "Exit code 2\nls: cannot access" },
      { type: "image", mediaType: "image/jpeg" },
    ]);
  });

  it("keeps text typed beside tool results as the person's words, and reminders as context", () => {
    const line = user("u-typed", [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "The user doesn't want to proceed",
        is_error: true,
      },
      { type: "text", text: "[Request interrupted by user for tool use]" },
      { type: "text", text: "use the quokka fixture instead" },
    ]);
    const r = turn(parseClaudeLine(line));
    expect(r.turn.role).toBe("user");
    expect(r.toolResultIds).toEqual(["toolu_1"]);
    const search = projectTranscriptTurn(r.turn, "search");
    expect(search.indexable).toBe(true);
    expect(search.text).toContain("use the quokka fixture instead");
    // A reminder beside a result is context, not typing: the turn stays a tool turn.
    const reminded = turn(
      parseClaudeLine(
        user("u-rem", [
          { type: "tool_result", tool_use_id: "toolu_2", content: "ok" },
          { type: "text", text: "<system-reminder>The file changed</system-reminder>" },
        ]),
      ),
    );
    expect(reminded.turn.role).toBe("tool");
    expect(projectTranscriptTurn(reminded.turn, "search").text).not.toContain("The file changed");
  });

  it("flags the isCompactSummary line as a compaction summary", () => {
    const r = turn(
      parseClaudeLine(
        user(
          "u-sum",
          "This session is being continued from a previous conversation that ran out of context.",
          {
            isCompactSummary: true,
            isVisibleInTranscriptOnly: true,
          },
        ),
      ),
    );
    expect(r.turn.isCompactionSummary).toBe(true);
    expect(r.turn.role).toBe("system");
    expect(r.turn.blocks[0]).toMatchObject({ type: "text" });
  });

  it("skips lines without content", () => {
    expect(parseClaudeLine(user("u-e", []))).toEqual({ type: "skip", reason: "empty", uuid: "u-e" });
    expect(parseClaudeLine(user("u-e2", ""))).toMatchObject({ type: "skip", reason: "empty" });
  });
});

describe("parseClaudeLine: written files (toolUseResult)", () => {
  const adr = "# ADR 0007: pooling\n\nWe run pgbouncer in transaction mode.\n";
  const result = (uuid: string, toolUseResult: unknown, content = "ok", isError = false) =>
    user(uuid, [{ type: "tool_result", tool_use_id: `toolu_${uuid}`, content, is_error: isError }], {
      toolUseResult,
    });
  const search = (r: ClaudeTurnRecord) => projectTranscriptTurn(r.turn, "search").text;

  it("a Write's content is previewed in its tool record, behind the call that wrote it", () => {
    const r = turn(
      parseClaudeLine(
        result(
          "w1",
          { type: "create", filePath: "/repo/docs/adr/0007.md", content: adr, structuredPatch: [] },
          "File created successfully at: /repo/docs/adr/0007.md",
        ),
      ),
    );
    expect(r.turn.role).toBe("tool");
    expect(r.toolResultIds).toEqual(["toolu_w1"]);
    expect(r.turn.blocks).toEqual([
      { type: "tool_call", name: "Write", input: { file_path: "/repo/docs/adr/0007.md", content: adr } },
      { type: "tool_result", output: "File created successfully at: /repo/docs/adr/0007.md" },
    ]);
    const text = search(r);
    expect(text).toContain("pgbouncer");
    expect(text.startsWith("[tool: Write — /repo/docs/adr/0007.md]\n# ADR 0007: pooling")).toBe(true);
    expect(projectTranscriptTurn(r.turn, "search").indexable).toBe(true);
  });

  it("Edit and MultiEdit: new strings only, never the original file or old strings", () => {
    const edit = turn(
      parseClaudeLine(
        result("e1", {
          filePath: "/repo/src/db.ts",
          oldString: "OLD_STRING_SECRET",
          newString: "const pool = createPool({ mode: 'pgbouncer' });",
          originalFile: "ORIGINAL_FILE_SECRET",
          structuredPatch: [],
        }),
      ),
    );
    expect(edit.turn.blocks[0]).toEqual({
      type: "tool_call",
      name: "Edit",
      input: { file_path: "/repo/src/db.ts", new_string: "const pool = createPool({ mode: 'pgbouncer' });" },
    });
    const multi = turn(
      parseClaudeLine(
        result("m1", {
          filePath: "/repo/src/db.ts",
          edits: [
            { old_string: "OLD_STRING_SECRET", new_string: "first replacement", replace_all: false },
            { old_string: "OLD_STRING_SECRET", new_string: "second replacement" },
          ],
          originalFileContents: "ORIGINAL_FILE_SECRET",
        }),
      ),
    );
    for (const r of [edit, multi]) {
      for (const mode of ["search", "read"] as const) {
        expect(projectTranscriptTurn(r.turn, mode).text).not.toMatch(
          /OLD_STRING_SECRET|ORIGINAL_FILE_SECRET/,
        );
      }
    }
    expect(search(edit)).toContain("pgbouncer");
    expect(search(multi)).toContain("first replacement\nsecond replacement");
  });

  it("adds nothing for a failed write, a Read, or a line with several results", () => {
    const failed = turn(
      parseClaudeLine(result("f1", { type: "create", filePath: "/a", content: adr }, "denied", true)),
    );
    expect(failed.turn.blocks.map((b) => b.type)).toEqual(["tool_result"]);
    const readResult = turn(
      parseClaudeLine(result("r1", { type: "text", file: { filePath: "/a", content: adr } }, "1→x")),
    );
    expect(readResult.turn.blocks.map((b) => b.type)).toEqual(["tool_result"]);
    const two = turn(
      parseClaudeLine(
        user(
          "two",
          [
            { type: "tool_result", tool_use_id: "t1", content: "ok" },
            { type: "tool_result", tool_use_id: "t2", content: "ok" },
          ],
          { toolUseResult: { type: "create", filePath: "/a", content: adr } },
        ),
      ),
    );
    expect(two.turn.blocks.map((b) => b.type)).toEqual(["tool_result", "tool_result"]);
  });

  it("the merger still names the result from its tool_use", () => {
    const out = mergeClaudeRecords([
      parseClaudeLine(
        assistant("a-w", [
          { type: "tool_use", id: "toolu_w2", name: "Write", input: { file_path: "/a", content: adr } },
        ]),
      ),
      parseClaudeLine(result("w2", { type: "create", filePath: "/a", content: adr })),
    ]);
    const tool = out.map(turn).find((r) => r.turn.role === "tool")!;
    expect(tool.turn.blocks[1]).toMatchObject({ type: "tool_result", name: "Write" });
    // The assistant's own record shows the call, never the content.
    const call = out.map(turn).find((r) => r.turn.role === "assistant")!;
    expect(search(call)).toBe("[tool: Write — /a]");
    expect(search(tool)).toContain("pgbouncer");
  });
});

describe("parseClaudeLine: assistant lines", () => {
  it("maps text, thinking, tool_use and server tools; drops redacted thinking and signatures", () => {
    const r = turn(
      parseClaudeLine(
        assistant(
          "a-1",
          [
            {
              type: "thinking",
              thinking: "Let me look at the files first.",
              signature: "EqQBCkYIBxgCKkC0sig",
            },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
            { type: "text", text: "I'll list files." },
            { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } },
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "vitest 4" } },
            {
              type: "web_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: [{ type: "web_search_result", title: "Vitest", url: "https://vitest.dev" }],
            },
          ],
          { requestId: "req_1", message: { id: "msg_1" } },
        ),
      ),
    );
    expect(r).toMatchObject({ model: "claude-sonnet-4-5", messageId: "msg_1", requestId: "req_1" });
    expect(r.toolCalls).toEqual([
      { id: "toolu_1", name: "Bash" },
      { id: "srvtoolu_1", name: "web_search" },
    ]);
    expect(r.turn.role).toBe("assistant");
    expect(r.turn.blocks.map((b) => b.type)).toEqual([
      "thinking",
      "text",
      "tool_call",
      "tool_call",
      "tool_result",
    ]);
    expect(r.turn.blocks[4]).toMatchObject({ type: "tool_result", name: "web_search" });
    const json = JSON.stringify(r);
    expect(json).not.toContain("EqQBCkYIBxgCKkC0sig");
    expect(json).not.toContain("EmwKAhgBEgy3va3pzix");
  });

  it("maps API error lines to role system and skips empty ones", () => {
    const r = turn(
      parseClaudeLine(
        assistant("a-err", [{ type: "text", text: "API Error: 529 overloaded" }], {
          isApiErrorMessage: true,
          message: { model: "<synthetic>" },
        }),
      ),
    );
    expect(r.turn.role).toBe("system");
    expect(parseClaudeLine(assistant("a-empty", [{ type: "redacted_thinking", data: "xx" }]))).toMatchObject({
      type: "skip",
      reason: "empty",
    });
  });
});

describe("parseClaudeLine: attachment, system, titles, skips", () => {
  it("maps attachments to context turns labelled by type, keeping only small rendered text", () => {
    const small = turn(
      parseClaudeLine(
        line({
          type: "attachment",
          uuid: "att-1",
          parentUuid: "u-1",
          timestamp: "2026-09-30T11:37:28.660Z",
          attachment: { type: "date" },
          rendered: [{ content: "<system-reminder>\nToday's date is 2026-09-30.\n</system-reminder>" }],
        }),
      ),
    );
    expect(small.subtype).toBe("date");
    expect(small.turn).toEqual({
      role: "context",
      blocks: [{ type: "context", label: "date", text: "Today's date is 2026-09-30." }],
      isCompactionSummary: false,
    });
    const big = turn(
      parseClaudeLine(
        line({
          type: "attachment",
          uuid: "att-2",
          attachment: { type: "skill_listing", content: "x".repeat(5000) },
        }),
      ),
    );
    expect(big.turn.blocks).toEqual([{ type: "context", label: "skill_listing", text: "" }]);
    expect(
      parseClaudeLine(line({ type: "attachment", uuid: "att-3", attachment: { type: "prompt_snapshot" } })),
    ).toEqual({ type: "skip", reason: "attachment:prompt_snapshot:empty", uuid: "att-3" });
  });

  it("maps system lines to short system turns, skipping silent subtypes", () => {
    const boundary = turn(
      parseClaudeLine(
        line({
          type: "system",
          subtype: "compact_boundary",
          uuid: "s-4",
          content: "Conversation compacted",
          compactMetadata: { trigger: "auto", preTokens: 120000 },
        }),
      ),
    );
    expect(boundary.turn.role).toBe("system");
    expect(boundary.subtype).toBe("compact_boundary");
    expect(boundary.turn.blocks).toEqual([
      { type: "text", text: "Conversation compacted (trigger auto, 120000 tokens before)." },
    ]);
    const apiError = turn(
      parseClaudeLine(
        line({
          type: "system",
          subtype: "api_error",
          uuid: "s-5",
          error: { status: 529, message: "Overloaded" },
        }),
      ),
    );
    expect(apiError.turn.blocks).toEqual([{ type: "text", text: "API error 529: Overloaded" }]);
    expect(
      parseClaudeLine(line({ type: "system", subtype: "turn_duration", uuid: "s-6", durationMs: 4 })),
    ).toMatchObject({
      type: "skip",
      reason: "system:turn_duration",
    });
  });

  it("maps summary, custom-title and ai-title lines to titles", () => {
    expect(
      parseClaudeLine(JSON.stringify({ type: "summary", summary: "Fixing auth", leafUuid: "l-1" })),
    ).toEqual({
      type: "title",
      sessionId: null,
      title: "Fixing auth",
      source: "summary",
      leafUuid: "l-1",
    });
    expect(
      parseClaudeLine(JSON.stringify({ type: "custom-title", sessionId: "s-1", customTitle: "Mine" })),
    ).toEqual({
      type: "title",
      sessionId: "s-1",
      title: "Mine",
      source: "custom-title",
    });
    expect(
      parseClaudeLine(JSON.stringify({ type: "ai-title", sessionId: "s-1", aiTitle: "AI" })),
    ).toMatchObject({
      source: "ai-title",
      title: "AI",
    });
  });

  it("skips metadata, progress, unknown and malformed lines with a reason", () => {
    expect(parseClaudeLine(JSON.stringify({ type: "file-history-snapshot", messageId: "a" }))).toEqual({
      type: "skip",
      reason: "file-history-snapshot",
    });
    expect(parseClaudeLine(JSON.stringify({ type: "queue-operation", operation: "enqueue" }))).toMatchObject({
      reason: "queue-operation",
    });
    expect(parseClaudeLine(line({ type: "progress", uuid: "p-1", data: {} }))).toMatchObject({
      reason: "progress",
    });
    expect(parseClaudeLine(JSON.stringify({ type: "brand-new-thing" }))).toMatchObject({
      reason: "unknown:brand-new-thing",
    });
    expect(parseClaudeLine('{"type":"user","uuid":"u-1","mess')).toEqual({
      type: "skip",
      reason: "malformed",
    });
    expect(parseClaudeLine("[1,2]")).toEqual({ type: "skip", reason: "malformed" });
    expect(parseClaudeLine(JSON.stringify({ type: "user", message: { content: "hi" } }))).toMatchObject({
      reason: "no-uuid",
    });
  });

  it("never throws on arbitrary JSON", () => {
    fc.assert(
      fc.property(
        fc.json(),
        fc.constantFrom("user", "assistant", "system", "attachment", "summary"),
        (json, type) => {
          const value = JSON.parse(json) as unknown;
          const wrapped = JSON.stringify({
            type,
            uuid: "x",
            message: { content: value },
            attachment: value,
            content: value,
          });
          const r = parseClaudeLine(wrapped);
          if (r.type === "turn") expect(TranscriptTurn.safeParse(r.turn).success).toBe(true);
          parseClaudeLine(json);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("createClaudeMerger", () => {
  const split = (uuid: string, content: unknown[], messageId: string, requestId?: string) =>
    parseClaudeLine(
      assistant(uuid, content, { ...(requestId ? { requestId } : {}), message: { id: messageId } }),
    );

  it("merges the lines of one streamed response (same message.id and requestId)", () => {
    const records = [
      split("a-1", [{ type: "text", text: "I'd suggest these changes:" }], "msg_A", "req_A"),
      split(
        "a-2",
        [{ type: "tool_use", id: "toolu_9", name: "Edit", input: { file: "a.md" } }],
        "msg_A",
        "req_A",
      ),
      parseClaudeLine(user("u-2", [{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }])),
    ];
    const out = mergeClaudeRecords(records);
    expect(out).toHaveLength(2);
    const merged = turn(out[0]!);
    expect(merged.uuid).toBe("a-1");
    expect(merged.mergedUuids).toEqual(["a-1", "a-2"]);
    expect(merged.turn.blocks.map((b) => b.type)).toEqual(["text", "tool_call"]);
    // The tool result learns its tool's name from the tool_use id.
    expect(turn(out[1]!).turn.blocks[0]).toMatchObject({ type: "tool_result", name: "Edit", output: "ok" });
  });

  it("keeps records queued behind an open response in line order", () => {
    const merger = createClaudeMerger();
    expect(merger.push(split("a-1", [{ type: "text", text: "one" }], "msg_A", "req_A"))).toEqual([]);
    expect(
      merger.push(parseClaudeLine(user("u-x", [{ type: "tool_result", tool_use_id: "t", content: "r" }]))),
    ).toEqual([]);
    expect(merger.push(split("a-2", [{ type: "text", text: "two" }], "msg_A", "req_A"))).toEqual([]);
    const out = merger.push(split("a-3", [{ type: "text", text: "three" }], "msg_B", "req_B"));
    expect(out.map((r) => (r.type === "turn" ? r.uuid : r.type))).toEqual(["a-1", "u-x"]);
    expect(turn(out[0]!).turn.blocks).toEqual([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    expect(merger.flush().map((r) => (r.type === "turn" ? r.uuid : r.type))).toEqual(["a-3"]);
  });

  it("does not merge a reused message.id without a matching requestId (lazyagents msg_1)", () => {
    const noRequest = mergeClaudeRecords([
      split(
        "a-1",
        [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo fixture" } }],
        "msg_1",
      ),
      split("a-2", [{ type: "text", text: "The command printed fixture." }], "msg_1"),
    ]);
    expect(noRequest).toHaveLength(2);
    const otherRequest = mergeClaudeRecords([
      split("a-1", [{ type: "text", text: "first" }], "msg_1", "req_1"),
      split("a-2", [{ type: "text", text: "second" }], "msg_1", "req_2"),
    ]);
    expect(otherRequest).toHaveLength(2);
  });

  it("drops repeated uuids (resume and fork copies)", () => {
    const out = mergeClaudeRecords([
      parseClaudeLine(user("u-1", "hello")),
      parseClaudeLine(user("u-1", "hello")),
      parseClaudeLine(user("u-2", "again")),
    ]);
    expect(out.map((r) => (r.type === "turn" ? r.uuid : r.type === "skip" ? r.reason : r.type))).toEqual([
      "u-1",
      "duplicate-uuid",
      "u-2",
    ]);
  });

  it("splits, never repeats, a response that continues after a flush", () => {
    const merger = createClaudeMerger();
    merger.push(split("a-1", [{ type: "text", text: "part one" }], "msg_A", "req_A"));
    const first = merger.flush();
    merger.push(split("a-2", [{ type: "text", text: "part two" }], "msg_A", "req_A"));
    const second = merger.flush();
    expect(first.map((r) => (r.type === "turn" ? r.uuid : ""))).toEqual(["a-1"]);
    expect(second.map((r) => (r.type === "turn" ? r.uuid : ""))).toEqual(["a-2"]);
  });
});
