/**
 * Every real transcript fixture under ../shared/fixtures/real/ goes through its source's record
 * mapper and then through both projections. Checks: nothing throws; every turn is a valid
 * TranscriptTurn; no thinking text, encrypted content or base64 payload read straight from the
 * raw records (independently of the mappers) survives into a projection; tool outputs survive
 * only as bounded head-and-tail previews (never the middle of a long one); and named records of
 * each fixture come out as the turns they should be, each exactly once.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { TranscriptTurn } from "../src/core/transcript.js";
import { projectTranscriptTurn } from "../src/projection/index.js";
import {
  mergeClaudeRecords,
  parseClaudeLine,
  type ClaudeRecord,
  type ClaudeTurnRecord,
} from "../src/sources/claude-code/record.js";
import {
  codexThreadIdFromPath,
  createCodexRolloutParser,
  type CodexRecord,
  type CodexSessionMeta,
  type CodexTurnRecord,
} from "../src/sources/codex/record.js";
import {
  mapOpencodeSessionRow,
  mapOpencodeV1Message,
  mapOpencodeV2Message,
  opencodeSessionSchema,
  type OpencodeRecord,
  type OpencodeSessionMeta,
  type OpencodeTurnRecord,
} from "../src/sources/opencode/record.js";
import { REAL_FIXTURES, sharedAvailable } from "./helpers/shared.js";

const available = sharedAvailable("fixtures/real");

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

const files = available ? walk(REAL_FIXTURES).sort() : [];
const rel = (file: string) => path.relative(REAL_FIXTURES, file);
const claudeFiles = files.filter((f) => rel(f).startsWith("claude-code") && f.endsWith(".jsonl"));
const codexFiles = files.filter((f) => rel(f).startsWith("codex") && /\.jsonl(\.zst)?$/.test(f));
const opencodeDbs = files.filter((f) => rel(f).startsWith("opencode") && f.endsWith(".db"));

// ---------------------------------------------------------------- what must never be projected

type Json = unknown;

/**
 * Texts read from the raw records: speech may be projected, secrets may not, tool outputs only
 * as a head-and-tail preview.
 */
interface Raw {
  speech: string[];
  secrets: Set<string>;
  outputs: Set<string>;
}

const norm = (s: string) => s.normalize("NFC").replace(/\s+/g, " ").trim();

function texts(value: Json): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (isObj(value) && typeof value["text"] === "string") return [value["text"]];
  return [];
}

function isObj(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Walks any JSON and collects base64 payloads and encrypted content wherever they sit. */
function collectBinary(value: Json, raw: Raw): void {
  if (typeof value === "string") {
    const dataUrl = /^data:[^,]*;base64,(.+)$/s.exec(value);
    if (dataUrl?.[1]) raw.secrets.add(dataUrl[1]);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectBinary(item, raw);
    return;
  }
  if (!isObj(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === "string") {
      if (key === "encrypted_content" || key === "signature") raw.secrets.add(inner);
      if (
        key === "data" &&
        (value["type"] === "base64" || value["type"] === "redacted_thinking" || "media_type" in value)
      ) {
        raw.secrets.add(inner);
      }
    }
    collectBinary(inner, raw);
  }
}

function claudeRaw(lines: Json[]): Raw {
  const raw: Raw = { speech: [], secrets: new Set(), outputs: new Set() };
  for (const line of lines) {
    if (!isObj(line)) continue;
    collectBinary(line, raw);
    const message = isObj(line["message"]) ? line["message"] : {};
    const content = message["content"];
    if (typeof content === "string") raw.speech.push(content);
    for (const block of Array.isArray(content) ? content : []) {
      if (!isObj(block)) continue;
      if (block["type"] === "text" && typeof block["text"] === "string") raw.speech.push(block["text"]);
      if (block["type"] === "thinking" && typeof block["thinking"] === "string")
        raw.secrets.add(block["thinking"]);
      if (block["type"] === "tool_result") {
        for (const t of texts(block["content"])) raw.outputs.add(t);
      }
    }
    const result = line["toolUseResult"];
    if (isObj(result)) {
      for (const key of ["stdout", "stderr"])
        if (typeof result[key] === "string") raw.outputs.add(result[key]);
    }
  }
  return raw;
}

function codexRaw(lines: Json[]): Raw {
  const raw: Raw = { speech: [], secrets: new Set(), outputs: new Set() };
  for (const line of lines) {
    if (!isObj(line)) continue;
    collectBinary(line, raw);
    const p = isObj(line["payload"]) ? line["payload"] : {};
    const type = p["type"];
    if (line["type"] === "response_item" && type === "message") {
      for (const t of texts(p["content"])) raw.speech.push(t);
    } else if (line["type"] === "response_item" && type === "reasoning") {
      for (const t of [...texts(p["summary"]), ...texts(p["content"])]) raw.secrets.add(t);
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      for (const t of texts(p["output"])) raw.outputs.add(t);
    } else if (line["type"] === "compacted") {
      if (typeof p["message"] === "string") raw.speech.push(p["message"]);
      for (const item of Array.isArray(p["replacement_history"]) ? p["replacement_history"] : []) {
        if (isObj(item)) for (const t of texts(item["content"])) raw.secrets.add(t);
      }
    } else if (type === "user_message" || type === "agent_message") {
      if (typeof p["message"] === "string") raw.speech.push(p["message"]);
    } else if (type === "agent_reasoning") {
      if (typeof p["text"] === "string") raw.secrets.add(p["text"]);
    } else if (type === "exec_command_end") {
      for (const key of ["aggregated_output", "stdout", "stderr", "formatted_output"]) {
        if (typeof p[key] === "string") raw.outputs.add(p[key]);
      }
    } else if (type === "item_completed" && isObj(p["item"])) {
      const item = p["item"];
      if (item["type"] === "UserMessage" || item["type"] === "AgentMessage") {
        for (const t of texts(item["content"])) raw.speech.push(t);
      }
      if (item["type"] === "CommandExecution") {
        for (const key of ["aggregated_output", "stdout", "stderr", "formatted_output"]) {
          if (typeof item[key] === "string") raw.outputs.add(item[key]);
        }
      }
    }
  }
  return raw;
}

function opencodeRaw(messageData: Json[], partData: Json[]): Raw {
  const raw: Raw = { speech: [], secrets: new Set(), outputs: new Set() };
  const tool = (state: Json) => {
    if (!isObj(state)) return;
    if (typeof state["output"] === "string") raw.outputs.add(state["output"]);
    for (const t of texts(state["content"])) raw.outputs.add(t);
  };
  for (const data of [...messageData, ...partData]) {
    if (!isObj(data)) continue;
    collectBinary(data, raw);
    if (typeof data["text"] === "string") {
      if (data["type"] === "reasoning") raw.secrets.add(data["text"]);
      else raw.speech.push(data["text"]);
    }
    if (data["type"] === "tool") tool(data["state"]);
    if (typeof data["output"] === "string") raw.outputs.add(data["output"]); // v2 shell rows
    for (const item of Array.isArray(data["content"]) ? data["content"] : []) {
      if (!isObj(item)) continue;
      if (item["type"] === "text" && typeof item["text"] === "string") raw.speech.push(item["text"]);
      if (item["type"] === "reasoning" && typeof item["text"] === "string") raw.secrets.add(item["text"]);
      if (item["type"] === "tool") tool(item["state"]);
    }
  }
  return raw;
}

/** Secrets worth checking: 12+ characters and not also said by the user or assistant. */
function forbidden(raw: Raw): string[] {
  const speech = raw.speech.map(norm);
  return [...raw.secrets].map(norm).filter((s) => s.length >= 12 && !speech.some((t) => t.includes(s)));
}

interface Projected {
  turn: TranscriptTurn;
  search: string;
  read: string;
}

function project(turns: TranscriptTurn[]): Projected[] {
  return turns.map((turn) => {
    expect(TranscriptTurn.safeParse(turn).success).toBe(true);
    const search = projectTranscriptTurn(turn, "search");
    const read = projectTranscriptTurn(turn, "read");
    expect(typeof search.text).toBe("string");
    expect(typeof read.text).toBe("string");
    return { turn, search: search.text, read: read.text };
  });
}

/**
 * The middles of long tool outputs: a preview keeps ~2 KiB of head and ~1 KiB of tail, so a
 * 256-character probe from the middle of an output over 16 KiB must never be projected.
 */
function middles(raw: Raw): string[] {
  return [...raw.outputs]
    .filter((o) => o.length > 16 * 1024)
    .map((o) => norm(o.slice(Math.floor(o.length / 2), Math.floor(o.length / 2) + 256)))
    .filter((m) => m.length >= 64);
}

function expectNoLeaks(projected: Projected[], raw: Raw): void {
  const secrets = [...forbidden(raw), ...middles(raw)];
  const outputs = projected.flatMap((p) => [norm(p.search), norm(p.read)]);
  for (const secret of secrets) {
    const probe = secret.length >= 40 ? secret.slice(0, 32) : secret;
    for (const text of outputs) {
      if (text.includes(probe))
        expect.fail(
          `projection leaks ${JSON.stringify(secret.slice(0, 80))} in ${JSON.stringify(text.slice(0, 200))}`,
        );
    }
  }
  for (const text of outputs) {
    expect(text).not.toMatch(/;base64,[A-Za-z0-9+/]{16}/);
    expect(text).not.toMatch(/[A-Za-z0-9+/]{200,}/);
  }
}

/** The search projection of the turns whose role is `role` and whose text contains `needle`. */
function find(projected: Projected[], role: TranscriptTurn["role"], needle: string): Projected[] {
  return projected.filter(
    (p) =>
      p.turn.role === role &&
      p.turn.blocks.some((b) => (b.type === "text" || b.type === "context") && b.text.includes(needle)),
  );
}

const jsonLines = (file: string): string[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0);
const parseAll = (lines: string[]): Json[] =>
  lines.map((l) => {
    try {
      return JSON.parse(l) as Json;
    } catch {
      return null;
    }
  });

// ---------------------------------------------------------------- per source

interface ClaudeRun {
  records: ClaudeRecord[];
  turns: ClaudeTurnRecord[];
  projected: Projected[];
}

function runClaude(file: string): ClaudeRun {
  const lines = jsonLines(file);
  const records = mergeClaudeRecords(lines.map((l) => parseClaudeLine(l)));
  const turns = records.filter((r): r is ClaudeTurnRecord => r.type === "turn");
  const projected = project(turns.map((t) => t.turn));
  expectNoLeaks(projected, claudeRaw(parseAll(lines)));
  return { records, turns, projected };
}

interface CodexRun {
  records: CodexRecord[];
  turns: CodexTurnRecord[];
  meta: CodexSessionMeta | undefined;
  projected: Projected[];
}

function runCodex(file: string): CodexRun {
  const lines = jsonLines(file);
  const parser = createCodexRolloutParser(codexThreadIdFromPath(file));
  const records = [...lines.flatMap((l) => parser.push(l)), ...parser.flush()];
  const turns = records.filter((r): r is CodexTurnRecord => r.type === "turn");
  const projected = project(turns.map((t) => t.turn));
  expectNoLeaks(projected, codexRaw(parseAll(lines)));
  return { records, turns, meta: parser.meta, projected };
}

interface OpencodeRun {
  sessions: OpencodeSessionMeta[];
  schemaOf: Map<string, "v1" | "v2">;
  records: OpencodeRecord[];
  turns: OpencodeTurnRecord[];
  projected: Projected[];
  /** The frozen v1 copies of sessions read from v2 (mapped for comparison, never counted). */
  shadowedV1: OpencodeTurnRecord[];
}

type Row = Record<string, unknown>;

function runOpencode(file: string): OpencodeRun {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    const all = (sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Row[];
    const v2Sessions = tables.has("session_v2") ? all("SELECT * FROM session_v2") : [];
    const v1Sessions = tables.has("session") ? all("SELECT * FROM session") : [];
    const sessionMessageRows = tables.has("session_message")
      ? (db.prepare("SELECT count(*) AS n FROM session_message").get() as { n: number }).n
      : 0;
    const v2SessionIds = new Set(v2Sessions.map((r) => String(r["id"])));

    const sessions = new Map<string, OpencodeSessionMeta>();
    const schemaOf = new Map<string, "v1" | "v2">();
    for (const row of [...v2Sessions, ...v1Sessions]) {
      const meta = mapOpencodeSessionRow(row);
      if (!meta || sessions.has(meta.id)) continue;
      sessions.set(meta.id, meta);
      schemaOf.set(meta.id, opencodeSessionSchema(meta.id, { v2SessionIds, sessionMessageRows }));
    }

    const records: OpencodeRecord[] = [];
    const shadowedV1: OpencodeTurnRecord[] = [];
    const messageData: Json[] = [];
    const partData: Json[] = [];
    const readV1 = (sessionId: string): OpencodeRecord[] => {
      if (!tables.has("message")) return [];
      const parts = tables.has("part")
        ? all("SELECT * FROM part WHERE session_id = ? ORDER BY id", sessionId)
        : [];
      return all("SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id", sessionId).map((m) =>
        mapOpencodeV1Message(
          m,
          parts.filter((p) => p["message_id"] === m["id"]),
        ),
      );
    };
    for (const [sessionId, schema] of schemaOf) {
      if (schema === "v2") {
        const rows = all("SELECT * FROM session_message WHERE session_id = ? ORDER BY seq", sessionId);
        for (const row of rows) messageData.push(JSON.parse(String(row["data"])) as Json);
        records.push(...rows.map((row) => mapOpencodeV2Message(row)));
        shadowedV1.push(...readV1(sessionId).filter((r): r is OpencodeTurnRecord => r.type === "turn"));
      } else {
        if (tables.has("message")) {
          for (const row of all("SELECT data FROM message WHERE session_id = ?", sessionId)) {
            messageData.push(JSON.parse(String(row["data"])) as Json);
          }
        }
        if (tables.has("part")) {
          for (const row of all("SELECT data FROM part WHERE session_id = ?", sessionId)) {
            partData.push(JSON.parse(String(row["data"])) as Json);
          }
        }
        records.push(...readV1(sessionId));
      }
    }
    const turns = records.filter((r): r is OpencodeTurnRecord => r.type === "turn");
    const projected = project(turns.map((t) => t.turn));
    expectNoLeaks(projected, opencodeRaw(messageData, partData));
    return { sessions: [...sessions.values()], schemaOf, records, turns, projected, shadowedV1 };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------- tests

describe.skipIf(!available)("real fixtures → record mappers → projections", () => {
  it("finds the fixtures this test names", () => {
    expect(claudeFiles.length).toBeGreaterThanOrEqual(7);
    expect(codexFiles.length).toBeGreaterThanOrEqual(2);
    expect(opencodeDbs.length).toBeGreaterThanOrEqual(2);
  });

  describe("Claude Code", () => {
    it.each(claudeFiles.map((f) => [rel(f), f]))("%s: maps, projects, leaks nothing", (_name, file) => {
      const { records } = runClaude(file);
      expect(records.length).toBeGreaterThan(0);
    });

    const file = (suffix: string) => {
      const found = claudeFiles.find((f) => f.endsWith(suffix));
      if (!found) throw new Error(`fixture ${suffix} missing`);
      return found;
    };

    it("2.1.284 (lazyagents): the prompt and the reply, msg_1 reuse not merged", () => {
      const { turns, projected } = runClaude(file("33cc15ab-fb10-4624-8cd8-c1baa189d2cd.jsonl"));
      const prompt = find(projected, "user", "run echo fixture please");
      expect(prompt).toHaveLength(1);
      expect(prompt[0]!.search).toContain("run echo fixture please");
      const reply = find(projected, "assistant", "The command printed fixture.");
      expect(reply).toHaveLength(1);
      expect(reply[0]!.search).toContain("The command printed fixture.");
      const msg1 = turns.filter((t) => t.messageId === "msg_1");
      expect(msg1.map((t) => t.uuid)).toEqual([
        "c0a96a65-c79f-4bde-aded-462bb64b5c53",
        "e849acf1-1f48-4288-a040-e53fd1eb1065",
      ]);
      expect(msg1.every((t) => t.mergedUuids === undefined)).toBe(true);
      const prompted = turns.find((t) => t.uuid === "2ae54f4a-4758-4ab6-a31f-60a8ccfc2624");
      expect(prompted).toMatchObject({
        sessionId: "33cc15ab-fb10-4624-8cd8-c1baa189d2cd",
        cwd: "/work/proj",
        version: "2.1.284",
      });
      const result = turns.find((t) => t.uuid === "f650c28c-5da3-46c4-8734-8d95d0f3cc3f");
      expect(result?.turn.role).toBe("tool");
      expect(result?.turn.blocks[0]).toMatchObject({ type: "tool_result", name: "Bash", output: "fixture" });
      // The tool's output is previewed: searchable in the tool record, after its summary in reads.
      const output = projected[turns.indexOf(result!)]!;
      expect(output.search).toBe("fixture");
      expect(output.read).toBe("[result: Bash ok]\nfixture");
      // Attachments are context, never user speech.
      const env = turns.find((t) => t.subtype === "environment");
      expect(env?.turn.role).toBe("context");
    });

    it("1.0.119 (episodic-memory): a streamed response split over two lines is merged", () => {
      const { turns, projected } = runClaude(file("67a8478e-78dc-44ab-82ea-f65c8ead85f6.jsonl"));
      const merged = turns.filter((t) => t.messageId === "msg_013AzJvSo29hMdozTKqH2ubu");
      expect(merged).toHaveLength(1);
      expect(merged[0]!.mergedUuids).toEqual([
        "8bf55491-efb2-4d74-8b54-1c1b64086d00",
        "036f35fc-8457-4186-8993-910aa3655ef5",
      ]);
      expect(merged[0]!.turn.blocks.map((b) => b.type)).toEqual(["text", "tool_call"]);
      expect(find(projected, "user", "Lately, I've noticed you being very tentative")).toHaveLength(1);
    });

    it("2.0.9 and the snapshot-only file: summary lines become titles", () => {
      const short = runClaude(file("982581eb-41b9-46da-86c1-ac34168117a8.jsonl"));
      expect(short.records).toContainEqual(
        expect.objectContaining({
          type: "title",
          source: "summary",
          title: "Prerequisites Checking: Unveiling Hidden Requirements and Technical Nuances",
        }),
      );
      const medium = runClaude(file("medium-conversation.jsonl"));
      expect(medium.turns).toHaveLength(0);
      expect(medium.records.filter((r) => r.type === "title")).toHaveLength(1);
    });

    it("coverage-synthetic: compaction summary flagged, thinking never projected, titles kept", () => {
      const { turns, records, projected } = runClaude(file("ses_stage0_small.jsonl"));
      const summary = turns.find((t) => t.uuid === "u3");
      expect(summary?.turn.isCompactionSummary).toBe(true);
      expect(turns.find((t) => t.uuid === "s4")?.turn.role).toBe("system");
      expect(records).toContainEqual(
        expect.objectContaining({ type: "title", source: "ai-title", title: "Stage0 AI title" }),
      );
      const a1 = turns.find((t) => t.uuid === "a1");
      expect(a1?.turn.blocks[0]).toEqual({ type: "thinking", text: "Reasoning goes here." });
      for (const p of projected) {
        expect(p.search).not.toContain("Reasoning goes here.");
        expect(p.read).not.toContain("Reasoning goes here.");
      }
    });

    it("coverage-synthetic subagent: sidechain lines keep agentId", () => {
      const { turns } = runClaude(file("agent-a0ad4f44468bdf20d.jsonl"));
      expect(turns.length).toBeGreaterThan(0);
      expect(turns.every((t) => t.isSidechain && t.agentId === "a0ad4f44468bdf20d")).toBe(true);
    });
  });

  describe("Codex", () => {
    it.each(codexFiles.map((f) => [rel(f), f]))("%s: maps, projects, leaks nothing", (_name, file) => {
      const { records } = runCodex(file);
      expect(records.length).toBeGreaterThan(0);
    });

    const file = (needle: string) => {
      const found = codexFiles.find((f) => f.includes(needle));
      if (!found) throw new Error(`fixture ${needle} missing`);
      return found;
    };

    it("0.158.0 (lazyagents): the prompt from item_completed, once; the reply, once; the command's exit code", () => {
      const { meta, turns, projected } = runCodex(file("01a0f21c-5c40-7f72-9aa9-ef0b43570680"));
      expect(meta).toMatchObject({
        threadId: "01a0f21c-5c40-7f72-9aa9-ef0b43570680",
        cliVersion: "0.158.0",
        originator: "codex_exec",
        source: "exec",
        cwd: "/work/proj",
      });
      const users = turns.filter((t) => t.turn.role === "user");
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({
        layer: "event_msg",
        item: "item_completed:UserMessage",
        model: "fake-model",
      });
      expect(find(projected, "user", "run echo fixture please")[0]!.search).toContain(
        "run echo fixture please",
      );
      const replies = turns.filter(
        (t) => t.turn.role === "assistant" && t.turn.blocks.some((b) => b.type === "text"),
      );
      expect(replies).toHaveLength(1);
      expect(find(projected, "assistant", "The command printed fixture.")[0]!.search).toContain(
        "The command printed fixture.",
      );
      const calls = turns.flatMap((t) => t.turn.blocks.filter((b) => b.type === "tool_call"));
      const results = turns.flatMap((t) => t.turn.blocks.filter((b) => b.type === "tool_result"));
      expect(calls).toEqual([{ type: "tool_call", name: "exec_command", input: { cmd: "echo fixture" } }]);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ exitCode: 0 });
      // The developer and environment messages are context.
      expect(turns.filter((t) => t.turn.role === "context")).toHaveLength(2);
    });

    it("0.146 coverage-synthetic: own session_meta among seven, each message once, compaction from message only", () => {
      const { meta, turns, records } = runCodex(file("019fc8be-3658-7ca3-9e29-000000000000"));
      expect(meta).toMatchObject({ threadId: "019fc8be-3658-7ca3-9e29-000000000000", cliVersion: "0.146.0" });
      expect(records.filter((r) => r.type === "meta")).toHaveLength(1);
      const said = (role: string, text: string) =>
        turns.filter(
          (t) => t.turn.role === role && t.turn.blocks.some((b) => b.type === "text" && b.text === text),
        );
      expect(said("user", "List the files")).toHaveLength(1);
      expect(said("assistant", "Found 2 files.")).toHaveLength(1);
      const compactions = turns.filter((t) => t.turn.isCompactionSummary);
      expect(compactions.length).toBeGreaterThanOrEqual(4);
      expect(compactions.every((t) => t.layer === "compacted" && t.turn.blocks.length === 1)).toBe(true);
      expect(records.some((r) => r.type === "title")).toBe(true);
    });
  });

  describe("opencode", () => {
    it.each(opencodeDbs.map((f) => [rel(f), f]))("%s: maps, projects, leaks nothing", (_name, file) => {
      const { turns } = runOpencode(file);
      expect(turns.length).toBeGreaterThan(0);
    });

    const db = (needle: string) => {
      const found = opencodeDbs.find((f) => f.includes(needle));
      if (!found) throw new Error(`fixture ${needle} missing`);
      return found;
    };

    it("2.0.26: five sessions, the subagent child with parent_id, synthetic reminder as context, failing tool", () => {
      const { sessions, turns, projected, schemaOf } = runOpencode(db("v2-2.0.26"));
      expect(sessions).toHaveLength(5);
      expect([...schemaOf.values()].every((s) => s === "v2")).toBe(true);
      const child = sessions.find((s) => s.id === "ses_ee23fe0f4ffeylWZL6V350JpvY");
      expect(child).toMatchObject({
        parentId: "ses_ee23fe1e7ffeeiMs3y3TW987xd",
        title: "Look around",
        directory: "/home/dev/proj",
        version: "2.0.26",
        agent: "general",
      });
      const childTurns = turns.filter((t) => t.sessionId === child!.id);
      expect(childTurns.map((t) => t.turn.role)).toEqual(["user", "assistant"]);
      const spawn = turns.find((t) => t.id === "msg_11dc01ee9001zM23KqGAMXr1Kj");
      expect(spawn?.childSessionIds).toEqual([child!.id]);
      expect(find(projected, "user", "Please USE A SUBAGENT to look around")).toHaveLength(1);
      const reminder = turns.find((t) => t.id === "msg_11dc023e3001ekJJbuInVZZwHd");
      expect(reminder?.turn.role).toBe("context");
      const failed = turns.find((t) => t.id === "msg_11dc02176001jjLUA6q2oCUd8e");
      expect(failed?.turn.blocks).toContainEqual({
        type: "tool_result",
        name: "read",
        isError: true,
        output: "File not found: /nonexistent/file.txt",
      });
      expect(turns.find((t) => t.id === "msg_11dc01b7b001uJxs1Tubz1eQWg")?.model).toEqual({
        providerID: "fake",
        modelID: "m1",
      });
    });

    it("1.15.10 → 2.0.26 upgrade: the migrated session is read from v2 only and counted once", () => {
      const { sessions, turns, schemaOf, shadowedV1, projected } = runOpencode(
        db("v1-1.15.10-upgraded-to-2.0.26"),
      );
      expect(sessions.map((s) => s.id).sort()).toEqual([
        "ses_ee23f2130ffeQJ1hVVb2kYmDG5",
        "ses_ee23f48fafferHslj7rwP1LkA5",
      ]);
      expect(schemaOf.get("ses_ee23f48fafferHslj7rwP1LkA5")).toBe("v2");
      expect(turns.every((t) => t.schema === "v2")).toBe(true);
      const prompt = turns.filter((t) =>
        t.turn.blocks.some((b) => b.type === "text" && b.text === '"Please USE A TOOL to print hi"'),
      );
      expect(prompt.map((t) => t.id)).toEqual(["msg_11dc0b7410017kTOc8H1lLx2Ro"]);
      expect(find(projected, "user", "Continue this in v2")).toHaveLength(1);
      expect(turns.find((t) => t.id === "msg_11dc0b885001W9mhAc2rbEkqP6")?.turn.role).toBe("system");
      // The frozen v1 copy maps to the same message ids and the same prompt: the id is the dedupe key.
      const v2Ids = new Set(turns.map((t) => t.id));
      expect(shadowedV1.length).toBe(4);
      expect(shadowedV1.every((t) => v2Ids.has(t.id))).toBe(true);
      expect(shadowedV1[0]!.turn.blocks).toEqual([{ type: "text", text: '"Please USE A TOOL to print hi"' }]);
      expect(shadowedV1.find((t) => t.id === "msg_11dc0b7dc001w2o4HJ921372E2")?.turn.blocks).toContainEqual({
        type: "tool_result",
        name: "bash",
        exitCode: 0,
        output: "hi\n",
      });
    });
  });
});
