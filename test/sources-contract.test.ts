/**
 * The source contract (helpers/source-contract.ts) on every registered source, each with a
 * small fixture in its real format. A source registered without a fixture fails here.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openBridgeWriter } from "../src/bridge/writer.js";
import { agentRoots, bridgeRoot, type Env } from "../src/platform/paths.js";
import { copilotSessions } from "../src/sources/copilot/paths.js";
import { piSessions } from "../src/sources/pi/paths.js";
import { READABLE_SOURCES } from "../src/sources/readers.js";
import { SOURCES } from "../src/sources/registry.js";
import { createDyadDb } from "./helpers/dyad.js";
import { createOpencodeV2Db } from "./helpers/opencode-db.js";
import { clineFixture, continueFixture, kiloFixture } from "./helpers/more-agents-contract.js";
import { sourceContract, type ContractFixture } from "./helpers/source-contract.js";
import {
  BASE_TIME,
  claudeLine,
  codexMeta,
  codexUserTurn,
  codexAgentTurn,
  hugeClaudeLine,
} from "./sources-lines.js";

const claudeFile = (env: Env, session: string) =>
  path.join(agentRoots(env).claude[0]!, "projects", "-nonexistent-contract", `${session}.jsonl`);
const codexFile = (env: Env, thread: string) =>
  path.join(
    agentRoots(env).codex,
    "sessions",
    "2026",
    "06",
    "01",
    `rollout-2026-06-01T09-00-00-${thread}.jsonl`,
  );

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const CLAUDE_A = "5f0c7a4e-1111-4c1a-9a7e-000000000001";
const CLAUDE_B = "5f0c7a4e-2222-4c1a-9a7e-000000000002";
const claude: ContractFixture = {
  write(env) {
    write(
      claudeFile(env, CLAUDE_A),
      claudeLine({ uuid: "a1", session: CLAUDE_A, text: "first ocelotword", at: BASE_TIME }) +
        claudeLine({ uuid: "a2", session: CLAUDE_A, text: "then pangolinword", at: BASE_TIME + 1000 }),
    );
    write(
      claudeFile(env, CLAUDE_B),
      claudeLine({ uuid: "b1", session: CLAUDE_B, text: "other quokkaword", at: BASE_TIME }),
    );
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: CLAUDE_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(claudeFile(env, CLAUDE_A)),
  torn: {
    begin: (env) =>
      appendFileSync(
        claudeFile(env, CLAUDE_A),
        claudeLine({ uuid: "a3", session: CLAUDE_A, text: "late tapirword" }).slice(0, 60),
      ),
    finish: (env) =>
      appendFileSync(
        claudeFile(env, CLAUDE_A),
        claudeLine({ uuid: "a3", session: CLAUDE_A, text: "late tapirword" }).slice(60),
      ),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(claudeFile(env, CLAUDE_A), hugeClaudeLine(CLAUDE_A, "huge", 200_000, "walrusword")),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

const THREAD_A = "0199a6d2-0000-7000-8000-00000000000a";
const THREAD_B = "0199a6d2-0000-7000-8000-00000000000b";
const codex: ContractFixture = {
  write(env) {
    write(
      codexFile(env, THREAD_A),
      codexMeta(THREAD_A) +
        codexUserTurn(THREAD_A, "first ocelotword", BASE_TIME + 1000, "u1") +
        codexAgentTurn(THREAD_A, "then pangolinword", BASE_TIME + 2000, "a1"),
    );
    write(
      codexFile(env, THREAD_B),
      codexMeta(THREAD_B) + codexUserTurn(THREAD_B, "other quokkaword", BASE_TIME + 1000, "u2"),
    );
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: THREAD_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(codexFile(env, THREAD_A)),
  torn: {
    begin: (env) =>
      appendFileSync(
        codexFile(env, THREAD_A),
        codexUserTurn(THREAD_A, "late tapirword", BASE_TIME + 3000, "u3").slice(0, 50),
      ),
    finish: (env) =>
      appendFileSync(
        codexFile(env, THREAD_A),
        codexUserTurn(THREAD_A, "late tapirword", BASE_TIME + 3000, "u3").slice(50),
      ),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(
        codexFile(env, THREAD_A),
        codexUserTurn(THREAD_A, `walrusword ${"lorem ipsum ".repeat(20_000)}`, BASE_TIME + 4000, "u4"),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

/** opencode 2.x: one database (WAL, as opencode keeps it), read without a checkpoint. */
const opencodeDb = (env: Env) => path.join(agentRoots(env).opencodeDataDir, "opencode.db");
const opencode: ContractFixture = {
  label: "2.x database",
  write(env) {
    const db = createOpencodeV2Db(opencodeDb(env), {
      project: { id: "p1", worktree: "/nonexistent/oc" },
      wal: true,
    });
    const session = (id: string) =>
      db
        .prepare(
          `INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
           VALUES (?, 'p1', NULL, 'slug', '/nonexistent/oc', 'a session', '2.0.26', ?, ?)`,
        )
        .run(id, BASE_TIME, BASE_TIME);
    const message = (sessionId: string, id: string, seq: number, text: string) =>
      db
        .prepare(
          "INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, 'user', ?, ?, ?, ?)",
        )
        .run(
          id,
          sessionId,
          seq,
          BASE_TIME + seq,
          BASE_TIME + seq,
          JSON.stringify({ time: { created: BASE_TIME + seq }, text, files: [] }),
        );
    session("ses_a");
    session("ses_b");
    message("ses_a", "msg_a1", 1, "first ocelotword");
    message("ses_a", "msg_a2", 2, "then pangolinword");
    message("ses_b", "msg_b1", 3, "other quokkaword");
    db.close();
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "ses_b", tokens: ["quokkaword"] },
  remove: (env) => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(opencodeDb(env) + suffix, { force: true });
  },
};

/** opencode before 1.2: whole JSON files under storage/ (session, message and part files). */
const storage = (env: Env) => path.join(agentRoots(env).opencodeDataDir, "storage");
function storageMessage(env: Env, session: string, id: string, text: string, at: number): string {
  const message = path.join(storage(env), "message", session, `${id}.json`);
  write(
    message,
    JSON.stringify({ id, sessionID: session, role: "user", time: { created: at }, agent: "build" }),
  );
  const part = `prt_${id.slice(4)}a`;
  write(
    path.join(storage(env), "part", id, `${part}.json`),
    JSON.stringify({ id: part, sessionID: session, messageID: id, type: "text", text }),
  );
  return message;
}
function storageSession(env: Env, id: string): void {
  const time = { created: BASE_TIME, updated: BASE_TIME };
  write(
    path.join(storage(env), "session", "proj1", `${id}.json`),
    JSON.stringify({
      id,
      slug: "otter",
      version: "1.1.0",
      projectID: "proj1",
      directory: "/nonexistent/oc",
      title: id,
      time,
    }),
  );
}
const opencodeStorage: ContractFixture = {
  label: "storage/ JSON files",
  write(env) {
    storageSession(env, "ses_sa");
    storageSession(env, "ses_sb");
    storageMessage(env, "ses_sa", "msg_sa1", "first ocelotword", BASE_TIME + 1);
    storageMessage(env, "ses_sa", "msg_sa2", "then pangolinword", BASE_TIME + 2);
    storageMessage(env, "ses_sb", "msg_sb1", "other quokkaword", BASE_TIME + 3);
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "ses_sb", tokens: ["quokkaword"] },
  remove: (env) => rmSync(storage(env), { recursive: true }),
  torn: {
    // The newest message file cut short while opencode writes it, then written whole.
    begin: (env) => {
      const file = storageMessage(env, "ses_sa", "msg_sa3", "late tapirword", BASE_TIME + 4);
      write(file, readFileSync(file, "utf8").slice(0, 30));
    },
    finish: (env) => void storageMessage(env, "ses_sa", "msg_sa3", "late tapirword", BASE_TIME + 4),
    token: "tapirword",
  },
};

/** GitHub Copilot CLI: one events.jsonl per session folder, one event a line. */
const copilotFile = (env: Env, session: string) => path.join(copilotSessions(env), session, "events.jsonl");
const copilotEvent = (id: string, type: string, data: Record<string, unknown>, at = BASE_TIME) =>
  `${JSON.stringify({ type, data, id, timestamp: new Date(at).toISOString(), parentId: null })}\n`;
const copilotStart = (session: string) =>
  copilotEvent(`${session}-start`, "session.start", {
    sessionId: session,
    selectedModel: "gpt-contract",
    context: { cwd: "/nonexistent/cp", branch: "main" },
  });
const copilotUser = (id: string, text: string, at = BASE_TIME) =>
  copilotEvent(id, "user.message", { content: text, messageId: id }, at);
const COPILOT_A = "c0a1c0a1-0000-4000-8000-00000000000a";
const COPILOT_B = "c0a1c0a1-0000-4000-8000-00000000000b";
const copilot: ContractFixture = {
  write(env) {
    write(
      copilotFile(env, COPILOT_A),
      copilotStart(COPILOT_A) +
        copilotUser("a1", "first ocelotword", BASE_TIME + 1) +
        copilotEvent(
          "a2",
          "assistant.message",
          { content: "then pangolinword", toolRequests: [] },
          BASE_TIME + 2,
        ),
    );
    write(copilotFile(env, COPILOT_B), copilotStart(COPILOT_B) + copilotUser("b1", "other quokkaword"));
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: COPILOT_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(path.dirname(copilotFile(env, COPILOT_A)), { recursive: true }),
  torn: {
    begin: (env) =>
      appendFileSync(copilotFile(env, COPILOT_A), copilotUser("a3", "late tapirword").slice(0, 40)),
    finish: (env) =>
      appendFileSync(copilotFile(env, COPILOT_A), copilotUser("a3", "late tapirword").slice(40)),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(
        copilotFile(env, COPILOT_A),
        copilotUser("a4", `walrusword ${"lorem ipsum ".repeat(20_000)}`),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

/** pi: `sessions/--<cwd>--/<time>_<session>.jsonl`, a header then entries. */
const piFile = (env: Env, session: string) =>
  path.join(piSessions(env), "--nonexistent-pi--", `2026-06-01T09-00-00-000Z_${session}.jsonl`);
const piHeader = (session: string) =>
  `${JSON.stringify({ type: "session", version: 3, id: session, timestamp: new Date(BASE_TIME).toISOString(), cwd: "/nonexistent/pi" })}\n`;
const piMessage = (id: string, role: "user" | "assistant", text: string, at = BASE_TIME) =>
  `${JSON.stringify({
    type: "message",
    id,
    parentId: null,
    timestamp: new Date(at).toISOString(),
    message: { role, content: [{ type: "text", text }], timestamp: at },
  })}\n`;
const PI_A = "0199a6d2-1111-7000-8000-00000000000a";
const PI_B = "0199a6d2-1111-7000-8000-00000000000b";
const pi: ContractFixture = {
  write(env) {
    write(
      piFile(env, PI_A),
      piHeader(PI_A) +
        piMessage("a1", "user", "first ocelotword", BASE_TIME + 1) +
        piMessage("a2", "assistant", "then pangolinword", BASE_TIME + 2),
    );
    write(piFile(env, PI_B), piHeader(PI_B) + piMessage("b1", "user", "other quokkaword"));
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: PI_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(piFile(env, PI_A)),
  torn: {
    begin: (env) => appendFileSync(piFile(env, PI_A), piMessage("a3", "user", "late tapirword").slice(0, 40)),
    finish: (env) => appendFileSync(piFile(env, PI_A), piMessage("a3", "user", "late tapirword").slice(40)),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(
        piFile(env, PI_A),
        piMessage("a4", "user", `walrusword ${"lorem ipsum ".repeat(20_000)}`),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

/** Dyad's own chat database: what a user deletes there leaves the index, so no `remove`. */
const dyad: ContractFixture = {
  write(env) {
    const dir = path.join(agentRoots(env).dyadUserData);
    mkdirSync(dir, { recursive: true });
    const d = createDyadDb(dir);
    const app = d.app("contract-app");
    const a = d.chat(app, "first chat");
    const b = d.chat(app, "second chat");
    d.message(a, "user", "first ocelotword");
    d.message(a, "assistant", "then pangolinword");
    d.message(b, "user", "other quokkaword");
    d.db.close();
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "chat:dyad:2", tokens: ["quokkaword"] },
};

/** The agent-bridge store, written by recall's own bridge writer. */
const bridge: ContractFixture = {
  write(env) {
    const w = openBridgeWriter(bridgeRoot(env));
    w.post({
      id: "m-contract-1",
      sender: "alice",
      recipients: ["bob"],
      body: "first ocelotword",
      conversation: "plan",
      at: BASE_TIME,
    });
    w.post({
      id: "m-contract-2",
      sender: "bob",
      recipients: ["alice"],
      body: "then pangolinword",
      conversation: "plan",
      at: BASE_TIME + 1,
    });
    w.post({
      id: "m-contract-3",
      sender: "carol",
      recipients: ["dave"],
      body: "other quokkaword",
      conversation: "side",
      at: BASE_TIME + 2,
    });
    w.close();
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "carol", tokens: ["quokkaword"] },
};

/** Each source's fixtures: one per kind of store it reads. */
/** Gemini CLI: a chat log under `.gemini/tmp/<project>/chats/` (header, then messages). */
const GEMINI_A = "9d1e2c3b-0000-4000-8000-00000000000a";
const GEMINI_B = "4f2a6b1c-0000-4000-8000-00000000000b";
const geminiFile = (env: Env, session: string) =>
  path.join(
    env.HOME!,
    ".gemini",
    "tmp",
    "contract",
    "chats",
    `session-2026-06-01T09-00-${session.slice(0, 8)}.jsonl`,
  );
const geminiHeader = (session: string) =>
  `${JSON.stringify({ sessionId: session, projectHash: "0".repeat(64), startTime: new Date(BASE_TIME).toISOString(), lastUpdated: new Date(BASE_TIME).toISOString(), kind: "main" })}\n`;
const geminiMessage = (id: string, text: string, at: number, type: "user" | "gemini" = "user") =>
  `${JSON.stringify({ id, timestamp: new Date(at).toISOString(), type, content: type === "user" ? [{ text }] : text, ...(type === "gemini" ? { model: "gemini-test" } : {}) })}\n`;
const gemini: ContractFixture = {
  write(env) {
    write(
      geminiFile(env, GEMINI_A),
      geminiHeader(GEMINI_A) +
        geminiMessage("m1", "first ocelotword", BASE_TIME + 1000) +
        `{"$set":{"lastUpdated":"2026-06-01T09:00:01.000Z"}}\n` +
        geminiMessage("m2", "then pangolinword", BASE_TIME + 2000, "gemini"),
    );
    write(
      geminiFile(env, GEMINI_B),
      geminiHeader(GEMINI_B) + geminiMessage("m1", "other quokkaword", BASE_TIME),
    );
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: GEMINI_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(geminiFile(env, GEMINI_A)),
  torn: {
    begin: (env) =>
      appendFileSync(
        geminiFile(env, GEMINI_A),
        geminiMessage("m3", "late tapirword", BASE_TIME + 3000).slice(0, 50),
      ),
    finish: (env) =>
      appendFileSync(
        geminiFile(env, GEMINI_A),
        geminiMessage("m3", "late tapirword", BASE_TIME + 3000).slice(50),
      ),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(
        geminiFile(env, GEMINI_A),
        geminiMessage("m4", `walrusword ${"lorem ipsum ".repeat(20_000)}`, BASE_TIME + 4000),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

/** Qwen Code: one chat per session under `.qwen/projects/<cwd slug>/chats/`. */
const QWEN_A = "5a7b8c9d-0000-4000-8000-00000000000a";
const QWEN_B = "5a7b8c9d-0000-4000-8000-00000000000b";
const qwenFile = (env: Env, session: string) =>
  path.join(env.HOME!, ".qwen", "projects", "-nonexistent-contract", "chats", `${session}.jsonl`);
const qwenLine = (
  session: string,
  uuid: string,
  text: string,
  at: number,
  type: "user" | "assistant" = "user",
) =>
  `${JSON.stringify({ uuid, parentUuid: null, sessionId: session, timestamp: new Date(at).toISOString(), type, cwd: "/nonexistent/contract", version: "0.24.4", gitBranch: "main", ...(type === "assistant" ? { model: "qwen-test" } : {}), message: { role: type === "user" ? "user" : "model", parts: [{ text }] } })}\n`;
const qwen: ContractFixture = {
  write(env) {
    write(
      qwenFile(env, QWEN_A),
      qwenLine(QWEN_A, "u1", "first ocelotword", BASE_TIME + 1000) +
        qwenLine(QWEN_A, "a1", "then pangolinword", BASE_TIME + 2000, "assistant"),
    );
    write(qwenFile(env, QWEN_B), qwenLine(QWEN_B, "u1", "other quokkaword", BASE_TIME));
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: QWEN_B, tokens: ["quokkaword"] },
  remove: (env) => rmSync(qwenFile(env, QWEN_A)),
  torn: {
    begin: (env) =>
      appendFileSync(
        qwenFile(env, QWEN_A),
        qwenLine(QWEN_A, "u2", "late tapirword", BASE_TIME + 3000).slice(0, 50),
      ),
    finish: (env) =>
      appendFileSync(
        qwenFile(env, QWEN_A),
        qwenLine(QWEN_A, "u2", "late tapirword", BASE_TIME + 3000).slice(50),
      ),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      appendFileSync(
        qwenFile(env, QWEN_A),
        qwenLine(QWEN_A, "u3", `walrusword ${"lorem ipsum ".repeat(20_000)}`, BASE_TIME + 4000),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

const FIXTURES: Record<string, ContractFixture[]> = {
  "claude-code": [claude],
  codex: [codex],
  opencode: [opencode, opencodeStorage],
  "gemini-cli": [gemini],
  "qwen-code": [qwen],
  "copilot-cli": [copilot],
  pi: [pi],
  cline: [clineFixture],
  kilo: [kiloFixture],
  continue: [continueFixture],
  dyad: [dyad],
  bridge: [bridge],
};

describe("the source contract covers every registered source", () => {
  it("has a fixture for each", () => {
    expect(SOURCES.map((d) => d.name).filter((name) => !FIXTURES[name])).toEqual([]);
  });
});

for (const definition of READABLE_SOURCES) {
  for (const fixture of FIXTURES[definition.name] ?? []) sourceContract(definition, fixture);
}
