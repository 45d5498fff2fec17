import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TranscriptTurn } from "../../core/transcript.js";
import { projectTranscriptTurn } from "../../projection/index.js";
import {
  mapOpencodeSessionRow,
  mapOpencodeStorageMessage,
  mapOpencodeStorageSession,
  mapOpencodeV1Message,
  mapOpencodeV2Message,
  opencodeSessionSchema,
  type OpencodeRecord,
  type OpencodeTurnRecord,
} from "./record.js";

const SES = "ses_ee23f48fafferHslj7rwP1LkA5";
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function turn(record: OpencodeRecord): OpencodeTurnRecord {
  if (record.type !== "turn") throw new Error(`expected a turn, got ${JSON.stringify(record)}`);
  expect(TranscriptTurn.safeParse(record.turn).success).toBe(true);
  return record;
}

const v1Message = (id: string, data: Record<string, unknown>, time = 1791500531521) => ({
  id,
  session_id: SES,
  time_created: time,
  time_updated: time + 5,
  data: JSON.stringify(data),
});
const part = (id: string, data: Record<string, unknown>) => ({
  id,
  message_id: "m",
  data: JSON.stringify(data),
});
const v2Row = (id: string, type: string, data: Record<string, unknown>, seq = 4) => ({
  id,
  session_id: SES,
  type,
  seq,
  time_created: 1791500491631,
  time_updated: 1791500491632,
  data: JSON.stringify(data),
});

describe("v1 message + parts", () => {
  it("maps a user message's text parts, ordering parts by id", () => {
    const r = turn(
      mapOpencodeV1Message(
        v1Message("msg_1", {
          role: "user",
          time: { created: 1 },
          agent: "build",
          model: { providerID: "fake", modelID: "m1" },
        }),
        [
          part("prt_2", { type: "text", text: "second" }),
          part("prt_1", { type: "text", text: '"Please USE A TOOL to print hi"' }),
        ],
      ),
    );
    expect(r).toMatchObject({
      schema: "v1",
      id: "msg_1",
      sessionId: SES,
      kind: "user",
      at: 1791500531521,
      updatedAt: 1791500531526,
      agent: "build",
      model: { providerID: "fake", modelID: "m1" },
    });
    expect(r.turn).toEqual({
      role: "user",
      blocks: [
        { type: "text", text: '"Please USE A TOOL to print hi"' },
        { type: "text", text: "second" },
      ],
      isCompactionSummary: false,
    });
  });

  it("maps synthetic and ignored text parts to context; a user message of only those is context", () => {
    const r = turn(
      mapOpencodeV1Message(v1Message("msg_2", { role: "user" }), [
        part("prt_1", {
          type: "text",
          text: 'Called the Read tool with {"filePath":"a.ts"}',
          synthetic: true,
        }),
        part("prt_2", { type: "text", text: "old draft", ignored: true }),
      ]),
    );
    expect(r.turn.role).toBe("context");
    expect(r.turn.blocks.map((b) => (b.type === "context" ? b.label : b.type))).toEqual([
      "synthetic",
      "ignored",
    ]);
  });

  it("maps assistant reasoning, tools (completed and error) and flat modelID/providerID", () => {
    const r = turn(
      mapOpencodeV1Message(
        v1Message("msg_3", {
          role: "assistant",
          parentID: "msg_1",
          modelID: "m1",
          providerID: "fake",
          agent: "build",
        }),
        [
          part("prt_1", { type: "step-start" }),
          part("prt_2", { type: "reasoning", text: "I should run echo." }),
          part("prt_3", {
            type: "tool",
            tool: "bash",
            callID: "call_1",
            state: {
              status: "completed",
              input: { command: "echo hi" },
              output: "hi\n",
              metadata: { exit: 0 },
            },
          }),
          part("prt_4", {
            type: "tool",
            tool: "read",
            callID: "call_2",
            state: { status: "error", input: { path: "note.txt" }, error: "invalid arguments" },
          }),
          part("prt_5", {
            type: "tool",
            tool: "task",
            state: { status: "running", input: { prompt: "go" }, metadata: { sessionId: "ses_child" } },
          }),
          part("prt_6", { type: "text", text: "Done." }),
          part("prt_7", { type: "step-finish", reason: "stop" }),
          part("prt_8", { type: "snapshot", snapshot: "abc" }),
          part("prt_9", { type: "retry", attempt: 1 }),
        ],
      ),
    );
    expect(r).toMatchObject({
      model: { providerID: "fake", modelID: "m1" },
      parentMessageId: "msg_1",
      childSessionIds: ["ses_child"],
    });
    expect(r.turn.role).toBe("assistant");
    expect(r.turn.blocks).toEqual([
      { type: "thinking", text: "I should run echo." },
      { type: "tool_call", name: "bash", input: { command: "echo hi" } },
      { type: "tool_result", name: "bash", exitCode: 0, output: "hi\n" },
      { type: "tool_call", name: "read", input: { path: "note.txt" } },
      { type: "tool_result", name: "read", isError: true, output: "invalid arguments" },
      { type: "tool_call", name: "task", input: { prompt: "go" } },
      { type: "text", text: "Done." },
    ]);
  });

  it("maps file parts: data URLs become images without their data; other files a context note", () => {
    const r = turn(
      mapOpencodeV1Message(v1Message("msg_4", { role: "user" }), [
        part("prt_1", { type: "text", text: "look at this" }),
        part("prt_2", {
          type: "file",
          mime: "image/png",
          filename: "shot.png",
          url: `data:image/png;base64,${PNG}`,
        }),
        part("prt_3", {
          type: "file",
          mime: "text/plain",
          filename: "notes.txt",
          url: "file:///home/dev/notes.txt",
          source: { type: "file", path: "notes.txt", text: { value: "SECRET CONTENT", start: 0, end: 1 } },
        }),
      ]),
    );
    expect(r.turn.blocks).toEqual([
      { type: "text", text: "look at this" },
      { type: "image", mediaType: "image/png" },
      { type: "context", label: "file", text: "notes.txt (text/plain)" },
    ]);
    expect(JSON.stringify(r)).not.toContain(PNG.slice(0, 20));
  });

  it("maps patch and subtask parts to tool calls", () => {
    const r = turn(
      mapOpencodeV1Message(v1Message("msg_5", { role: "assistant" }), [
        part("prt_1", { type: "patch", hash: "abc123", files: ["/p/a.ts"] }),
        part("prt_2", { type: "subtask", prompt: "review", description: "Review", agent: "general" }),
      ]),
    );
    expect(r.turn.blocks).toEqual([
      { type: "tool_call", name: "patch", input: { hash: "abc123", files: ["/p/a.ts"] } },
      {
        type: "tool_call",
        name: "subtask",
        input: { prompt: "review", description: "Review", agent: "general" },
      },
    ]);
  });

  it("flags summary:true assistant messages as compaction summaries and skips the bare compaction marker", () => {
    const summary = turn(
      mapOpencodeV1Message(v1Message("msg_6", { role: "assistant", summary: true }), [
        part("prt_1", { type: "text", text: "We set up the repo and fixed tests." }),
      ]),
    );
    expect(summary.turn).toEqual({
      role: "system",
      blocks: [{ type: "text", text: "We set up the repo and fixed tests." }],
      isCompactionSummary: true,
    });
    expect(
      mapOpencodeV1Message(v1Message("msg_7", { role: "user" }), [
        part("prt_1", { type: "compaction", auto: true }),
      ]),
    ).toEqual({ type: "skip", reason: "compaction-marker", id: "msg_7" });
  });

  it("maps an aborted assistant message without parts to a system note, and skips malformed rows", () => {
    const aborted = turn(
      mapOpencodeV1Message(
        v1Message("msg_8", {
          role: "assistant",
          error: { name: "MessageAbortedError", data: { message: "Aborted" } },
        }),
        [],
      ),
    );
    expect(aborted.turn.blocks).toEqual([{ type: "text", text: "MessageAbortedError: Aborted" }]);
    expect(mapOpencodeV1Message({ id: "m", session_id: SES, data: "{oops" }, [])).toEqual({
      type: "skip",
      reason: "malformed",
      id: "m",
    });
    expect(mapOpencodeV1Message({ data: "{}" }, [])).toMatchObject({ type: "skip", reason: "no-id" });
  });

  it("maps pre-1.2 storage JSON objects through the same v1 mapper", () => {
    const r = turn(
      mapOpencodeStorageMessage(
        {
          id: "msg_j",
          sessionID: SES,
          role: "assistant",
          time: { created: 1700000000000 },
          model: { providerID: "anthropic", modelID: "claude" },
        },
        [{ id: "prt_1", messageID: "msg_j", sessionID: SES, type: "text", text: "from JSON storage" }],
      ),
    );
    expect(r).toMatchObject({
      id: "msg_j",
      sessionId: SES,
      at: 1700000000000,
      model: { providerID: "anthropic", modelID: "claude" },
    });
    expect(r.turn.blocks).toEqual([{ type: "text", text: "from JSON storage" }]);
    expect(
      mapOpencodeStorageSession({
        id: SES,
        projectID: "global",
        parentID: "ses_p",
        directory: "/p",
        title: "T",
        version: "0.9.1",
        time: { created: 1, updated: 2 },
      }),
    ).toEqual({
      id: SES,
      parentId: "ses_p",
      projectId: "global",
      directory: "/p",
      title: "T",
      version: "0.9.1",
      createdAt: 1,
      updatedAt: 2,
    });
  });
});

describe("v2 session_message rows", () => {
  it("maps user rows (text and files) with the type column as the kind", () => {
    const r = turn(
      mapOpencodeV2Message(
        v2Row("msg_u", "user", {
          time: { created: 1791500491631 },
          text: '"Please USE A TOOL to print hi"',
          files: [{ mime: "image/png", url: `data:image/png;base64,${PNG}`, filename: "a.png" }],
        }),
      ),
    );
    expect(r).toMatchObject({ schema: "v2", kind: "user", seq: 4, at: 1791500491631 });
    expect(r.turn.blocks).toEqual([
      { type: "text", text: '"Please USE A TOOL to print hi"' },
      { type: "image", mediaType: "image/png" },
    ]);
    expect(JSON.stringify(r)).not.toContain(PNG.slice(0, 20));
  });

  it("maps assistant content: text, reasoning, completed and failed tools, and v2 model{id,providerID}", () => {
    const r = turn(
      mapOpencodeV2Message(
        v2Row("msg_a", "assistant", {
          agent: "build",
          model: { id: "m1", providerID: "fake" },
          content: [
            { type: "reasoning", id: "r1", text: "thinking about it" },
            {
              type: "tool",
              id: "call_1",
              name: "shell",
              state: {
                status: "completed",
                input: { command: "echo hi" },
                content: [{ type: "text", text: "hi\n" }],
                metadata: { exit: 0 },
              },
            },
            {
              type: "tool",
              id: "call_2",
              name: "read",
              state: {
                status: "error",
                input: { path: "/nope" },
                error: { type: "tool.execution", message: "File not found: /nope" },
              },
            },
            {
              type: "tool",
              id: "call_3",
              name: "subagent",
              state: {
                status: "completed",
                input: { prompt: "look" },
                content: [{ type: "text", text: '<subagent sessionID="ses_c">ok</subagent>' }],
                metadata: { sessionID: "ses_c" },
              },
            },
            { type: "tool", id: "call_4", name: "shell", state: { status: "pending", input: '{"comm' } },
            { type: "text", id: "t1", text: "The command ran; it printed hi. Done. " },
          ],
        }),
      ),
    );
    expect(r).toMatchObject({
      model: { providerID: "fake", modelID: "m1" },
      agent: "build",
      childSessionIds: ["ses_c"],
    });
    expect(r.turn.blocks).toEqual([
      { type: "thinking", text: "thinking about it" },
      { type: "tool_call", name: "shell", input: { command: "echo hi" } },
      { type: "tool_result", name: "shell", exitCode: 0, output: "hi\n" },
      { type: "tool_call", name: "read", input: { path: "/nope" } },
      { type: "tool_result", name: "read", isError: true, output: "File not found: /nope" },
      { type: "tool_call", name: "subagent", input: { prompt: "look" } },
      { type: "tool_result", name: "subagent", output: '<subagent sessionID="ses_c">ok</subagent>' },
      { type: "tool_call", name: "shell", input: '{"comm' },
      { type: "text", text: "The command ran; it printed hi. Done. " },
    ]);
  });

  it("maps synthetic to context, system to system, shell to a tool call and result, compaction to a summary", () => {
    expect(
      turn(
        mapOpencodeV2Message(
          v2Row("s1", "synthetic", { text: "<system-reminder>Plan mode</system-reminder>" }),
        ),
      ).turn,
    ).toEqual({
      role: "context",
      blocks: [{ type: "context", label: "synthetic", text: "<system-reminder>Plan mode</system-reminder>" }],
      isCompactionSummary: false,
    });
    expect(
      turn(mapOpencodeV2Message(v2Row("s2", "system", { text: "The available tools have changed." }))).turn
        .role,
    ).toBe("system");
    expect(
      turn(mapOpencodeV2Message(v2Row("s3", "shell", { callID: "c", command: "ls", output: "a\nb\n" }))).turn,
    ).toEqual({
      role: "tool",
      blocks: [
        { type: "tool_call", name: "shell", input: { command: "ls" } },
        { type: "tool_result", name: "shell", output: "a\nb\n" },
      ],
      isCompactionSummary: false,
    });
    expect(
      turn(
        mapOpencodeV2Message(v2Row("s4", "compaction", { reason: "auto", summary: "We did X.", recent: [] })),
      ).turn,
    ).toEqual({ role: "system", blocks: [{ type: "text", text: "We did X." }], isCompactionSummary: true });
  });

  it("skips agent-switched, model-switched, idle and unknown kinds", () => {
    for (const kind of ["agent-switched", "model-switched", "idle"]) {
      expect(mapOpencodeV2Message(v2Row("x", kind, { time: { created: 1 } }))).toEqual({
        type: "skip",
        reason: kind,
        id: "x",
      });
    }
    expect(mapOpencodeV2Message(v2Row("y", "hologram", {}))).toMatchObject({ reason: "unknown:hologram" });
  });
});

describe("sessions", () => {
  it("maps session_v2 rows including parent_id and a JSON model column", () => {
    expect(
      mapOpencodeSessionRow({
        id: "ses_child",
        project_id: "8c7b",
        parent_id: "ses_parent",
        slug: "stellar-mountain",
        directory: "/home/dev/proj",
        title: "Look around",
        version: "2.0.26",
        agent: "general",
        model: '{"id":"m1","providerID":"fake","variant":"default"}',
        time_created: 1791500492557,
        time_updated: 1791500492586,
      }),
    ).toEqual({
      id: "ses_child",
      parentId: "ses_parent",
      projectId: "8c7b",
      directory: "/home/dev/proj",
      title: "Look around",
      version: "2.0.26",
      slug: "stellar-mountain",
      agent: "general",
      model: { providerID: "fake", modelID: "m1" },
      createdAt: 1791500492557,
      updatedAt: 1791500492586,
    });
    expect(mapOpencodeSessionRow({ title: "no id" })).toBeUndefined();
  });

  it("chooses v2 only when session_message has rows and the session is in session_v2", () => {
    const v2SessionIds = new Set(["ses_a"]);
    expect(opencodeSessionSchema("ses_a", { v2SessionIds, sessionMessageRows: 3 })).toBe("v2");
    expect(opencodeSessionSchema("ses_b", { v2SessionIds, sessionMessageRows: 3 })).toBe("v1");
    expect(opencodeSessionSchema("ses_a", { v2SessionIds, sessionMessageRows: 0 })).toBe("v1");
  });
});

describe("robustness", () => {
  it("never throws and always yields valid turns on arbitrary data", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("user", "assistant", "synthetic", "system", "shell", "compaction", "idle", "?"),
        fc.jsonValue(),
        fc.jsonValue(),
        (kind, data, partData) => {
          const check = (r: OpencodeRecord) => {
            if (r.type === "turn") expect(TranscriptTurn.safeParse(r.turn).success).toBe(true);
          };
          check(mapOpencodeV2Message({ id: "m", session_id: "s", type: kind, data: JSON.stringify(data) }));
          check(
            mapOpencodeV2Message({
              id: "m",
              session_id: "s",
              type: kind,
              data: { content: data, text: data, files: data },
            }),
          );
          check(
            mapOpencodeV1Message({ id: "m", session_id: "s", data: { role: kind } }, [
              { id: "p", data: partData },
              { id: "q", data: { type: "tool", state: partData } },
            ]),
          );
          check(mapOpencodeStorageMessage(data, [partData]));
          mapOpencodeSessionRow({ id: "s", model: data, time_created: data });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("tool output and written content (projected in the message's own record)", () => {
  const adr = "# ADR 0007: pooling\n\nWe run pgbouncer in transaction mode.\n";

  it("v2: a write's content and a tool's output are searchable; a failed edit's new text is not", () => {
    const r = turn(
      mapOpencodeV2Message(
        v2Row("msg_w", "assistant", {
          content: [
            { type: "text", id: "t1", text: "Writing the ADR." },
            {
              type: "tool",
              id: "call_w",
              name: "write",
              state: {
                status: "completed",
                input: { filePath: "/p/docs/adr/0007.md", content: adr },
                content: [{ type: "text", text: "Wrote file successfully." }],
              },
            },
            {
              type: "tool",
              id: "call_e",
              name: "edit",
              state: {
                status: "error",
                input: { filePath: "/p/a.ts", oldString: "a", newString: "FAILED_EDIT_TEXT" },
                error: { type: "tool.execution", message: "oldString not found" },
              },
            },
          ],
        }),
      ),
    );
    expect(r.turn.role).toBe("assistant");
    const search = projectTranscriptTurn(r.turn, "search").text;
    expect(search).toContain("Writing the ADR.");
    expect(search).toContain("[tool: write — /p/docs/adr/0007.md]\n# ADR 0007: pooling");
    expect(search).toContain("pgbouncer");
    expect(search).toContain("Wrote file successfully.");
    expect(search).not.toContain("FAILED_EDIT_TEXT");
    expect(search).toContain("[error: edit — oldString not found]");
  });

  it("v1: a tool part's input and output", () => {
    const r = turn(
      mapOpencodeV1Message(v1Message("msg_v1w", { role: "assistant", time: { created: 1 } }), [
        part("prt_1", {
          type: "tool",
          callID: "c1",
          tool: "write",
          state: {
            status: "completed",
            input: { filePath: "/p/adr.md", content: adr },
            output: "",
            title: "adr.md",
          },
        }),
        part("prt_2", {
          type: "tool",
          callID: "c2",
          tool: "bash",
          state: { status: "completed", input: { command: "npm test" }, output: "Tests: 42 passed\n" },
        }),
      ]),
    );
    const search = projectTranscriptTurn(r.turn, "search").text;
    expect(search).toContain("pgbouncer");
    expect(search).toContain("Tests: 42 passed");
  });
});
