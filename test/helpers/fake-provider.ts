/**
 * Fake provider CLIs (claude, codex, opencode) for answer tests: small Node scripts placed on PATH
 * in a temporary HOME. Each rejects, with exit code 64, any flag that the captured real `--help`
 * text (test/fixtures/provider-help/) does not list, records every invocation, and plays a
 * scenario the test writes.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./tmp.js";

const HELP_DIR = fileURLToPath(new URL("../fixtures/provider-help/", import.meta.url));

export type FakeName = "claude" | "codex" | "opencode";

/** Which captured help text governs an invocation, by its first argument. */
const HELP_FILES: Record<FakeName, Record<string, string>> = {
  claude: { "": "claude.help.txt" },
  codex: { "": "codex.help.txt", exec: "codex-exec.help.txt", "app-server": "codex-app-server.help.txt" },
  opencode: { "": "opencode.help.txt", run: "opencode-run.help.txt", models: "opencode-models.help.txt" },
};

/** Every flag an option line of a captured help text names (`-c, --config <key=value>` gives both). */
export function flagsFromHelp(text: string): string[] {
  const flags = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^\s{1,10}(-[-\w].*)$/.exec(line);
    if (!m) continue;
    const spec = (m[1] ?? "").split(/\s{2,}/)[0]!.replace(/<[^>]*>|\[[^\]]*\]/g, " ");
    for (const flag of spec.matchAll(/(?<![\w-])--?[A-Za-z][\w-]*/g)) flags.add(flag[0]);
  }
  return [...flags].sort();
}

/**
 * Real flags that `--help` does not print. Claude's `--max-turns` is a print-mode option of the
 * CLI reference (code.claude.com/docs/en/cli-reference) hidden from `claude --help`.
 */
const HIDDEN_FLAGS: Record<FakeName, Record<string, string[]>> = {
  claude: { "": ["--max-turns"] },
  codex: {},
  opencode: {},
};

export function helpFlags(name: FakeName): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(HELP_FILES[name]).map(([sub, file]) => [
      sub,
      [
        ...flagsFromHelp(readFileSync(path.join(HELP_DIR, file), "utf8")),
        ...(HIDDEN_FLAGS[name][sub] ?? []),
      ].sort(),
    ]),
  );
}

export interface ClaudeScenario {
  /** get_usage's response payload, "error" for a failed control response, "hang" for none. */
  usage?: unknown;
  run?: RunScenario & { isError?: boolean };
}
export interface CodexScenario {
  /** account/rateLimits/read's result, or { error } for a JSON-RPC error. */
  rateLimits?: unknown;
  models?: string[];
  pageSize?: number;
  run?: RunScenario;
}
export interface OpencodeScenario {
  /** What `opencode models --verbose` prints. */
  catalog?: string;
  /** run.events replace the answer's own events. */
  run?: RunScenario;
}
export interface RunScenario {
  /** The answer text; "auto" cites the first excerpt id found in the prompt. */
  text?: string;
  exitCode?: number;
  /** Never answer (and start a grandchild that records its pid in grandchild.pid). */
  hang?: boolean;
  /**
   * A model that keeps asking for tools: one model request every 10 ms, each counted in
   * requests.count and shown in the CLI's event stream, until the process is stopped (or, for
   * claude, until its --max-turns runs out, as the real CLI does).
   */
  toolLoop?: boolean;
  /** codex: events printed with --json before the answer, which follows 200 ms later. */
  events?: unknown[];
}

/** What a fake saw of its configuration folders when it started (see `inspect` in SCRIPT). */
export interface FakeSeen {
  /** The folder the CLI would read its user configuration from, and what it holds. */
  configDir: string;
  configFiles: string[];
  /** The login file the CLI would read, and its content (null when absent). */
  authFile: string;
  auth: string | null;
  /** Folders under HOME that the real CLIs also read (`~/.agents`, `~/.opencode`). */
  homeAgents: boolean;
  homeOpencode: boolean;
}

export interface FakeCall {
  name: FakeName;
  argv: string[];
  cwd: string;
  stdin: string;
  /** The whole environment the fake was started with. */
  env: Record<string, string>;
  seen: FakeSeen;
}

/** The fake's own program; `CONFIG` is replaced with its allowed flags and file locations. */
const SCRIPT = String.raw`#!/usr/bin/env node
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const CONFIG = __CONFIG__;
const argv = process.argv.slice(2);
const E = process.env;
const HOME = E.HOME || "";
const scenario = fs.existsSync(CONFIG.scenario) ? JSON.parse(fs.readFileSync(CONFIG.scenario, "utf8")) : {};
const sub = CONFIG.flags[argv[0]] ? argv[0] : "";
const allowed = new Set(CONFIG.flags[sub]);
for (const arg of argv) {
  if (arg.length > 1 && arg.startsWith("-") && !allowed.has(arg.split("=")[0])) {
    process.stderr.write("error: unexpected argument '" + arg + "' found\n");
    record("");
    process.exit(64);
  }
}
// Where each real CLI reads its user configuration and login, from the variables it honours.
function inspect() {
  const list = (dir) => { try { return fs.readdirSync(dir).sort(); } catch { return []; } };
  const read = (file) => { try { return fs.readFileSync(file, "utf8"); } catch { return null; } };
  let configDir = "", authFile = "";
  if (CONFIG.name === "codex") {
    configDir = E.CODEX_HOME || path.join(HOME, ".codex");
    authFile = path.join(configDir, "auth.json");
  } else if (CONFIG.name === "opencode") {
    configDir = path.join(E.XDG_CONFIG_HOME || path.join(HOME, ".config"), "opencode");
    authFile = path.join(E.XDG_DATA_HOME || path.join(HOME, ".local", "share"), "opencode", "auth.json");
  } else {
    configDir = E.CLAUDE_CONFIG_DIR || path.join(HOME, ".claude");
    authFile = path.join(configDir, ".credentials.json");
  }
  return {
    configDir, configFiles: list(configDir), authFile, auth: read(authFile),
    homeAgents: fs.existsSync(path.join(HOME, ".agents")),
    homeOpencode: fs.existsSync(path.join(HOME, ".opencode")),
  };
}
function record(stdin) {
  const call = { name: CONFIG.name, argv, cwd: process.cwd(), stdin, env: { ...E }, seen: inspect() };
  fs.appendFileSync(CONFIG.calls, JSON.stringify(call) + "\n");
}
// State each real CLI writes outside its working folder, mimicked so tests can see where it lands:
// Claude's per-project folder (auto memory's empty memory/), Codex's and opencode's logs.
function leaveTraces() {
  if (CONFIG.name === "claude") {
    const base = E.CLAUDE_CONFIG_DIR || path.join(HOME, ".claude");
    const project = process.cwd().replace(/[^a-zA-Z0-9]/g, "-");
    fs.mkdirSync(path.join(base, "projects", project, "memory"), { recursive: true });
  } else if (CONFIG.name === "codex") {
    const log = path.join(E.CODEX_HOME || path.join(HOME, ".codex"), "log");
    fs.mkdirSync(log, { recursive: true });
    fs.appendFileSync(path.join(log, "codex.log"), "run\n");
  } else {
    const log = path.join(E.XDG_DATA_HOME || path.join(HOME, ".local", "share"), "opencode", "log");
    fs.mkdirSync(log, { recursive: true });
    fs.appendFileSync(path.join(log, "opencode.log"), "run\n");
  }
}
leaveTraces();
/** One model request of a tool loop: counted, then shown by the caller in its event stream. */
function request() {
  fs.appendFileSync(path.join(CONFIG.dir, "requests.count"), "x");
}
function toolLoop(each) {
  let n = 0;
  const tick = () => {
    n += 1;
    request();
    if (each(n) !== false) setTimeout(tick, 10);
  };
  tick();
}
function readAll(done) {
  let text = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d) => (text += d));
  process.stdin.on("end", () => done(text));
}
function hang() {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  fs.writeFileSync(path.join(CONFIG.dir, "grandchild.pid"), String(child.pid));
  setInterval(() => {}, 1000);
}
function answerText(prompt, run) {
  if (run.text !== "auto") return run.text ?? "";
  const m = /<excerpt id="([^"]+)"/.exec(prompt);
  return "The history says so [" + (m ? m[1] : "none") + "].";
}
function lines(onMessage) {
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d) => {
    pending += d;
    let i;
    while ((i = pending.indexOf("\n")) >= 0) {
      const raw = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (raw.trim()) onMessage(JSON.parse(raw));
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");

if (CONFIG.name === "claude") {
  if (argv.includes("--input-format")) {
    record("");
    lines((m) => {
      if (m.type !== "control_request") return;
      if (scenario.usage === "hang") return;
      if (scenario.usage === "crash") process.exit(3);
      if (scenario.usage === "error") {
        send({ type: "control_response", response: { subtype: "error", request_id: m.request_id, error: "no" } });
        return;
      }
      send({ type: "control_response", response: { subtype: "success", request_id: m.request_id, response: scenario.usage } });
    });
  } else {
    readAll((prompt) => {
      record(prompt);
      const run = scenario.run || {};
      if (run.hang) return hang();
      if (run.toolLoop) {
        // As the real CLI: each tool request is a turn; --max-turns ends the run as an error.
        const i = argv.indexOf("--max-turns");
        const max = i >= 0 ? Number(argv[i + 1]) : Infinity;
        return toolLoop((n) => {
          if (n < max) return true;
          send({ type: "result", subtype: "error_max_turns", is_error: true, num_turns: n });
          process.exit(1);
        });
      }
      const text = answerText(prompt, run);
      send({ type: "result", subtype: "success", is_error: !!run.isError, result: text });
      process.exit(run.exitCode ?? (run.isError ? 1 : 0));
    });
  }
} else if (CONFIG.name === "codex") {
  if (argv[0] === "app-server") {
    record("");
    lines((m) => {
      if (m.id === undefined) return;
      if (m.method === "initialize") return send({ id: m.id, result: { userAgent: "fake" } });
      if (m.method === "account/rateLimits/read") {
        if (scenario.rateLimits === "hang") return;
        if (scenario.rateLimits && scenario.rateLimits.error) return send({ id: m.id, error: { code: -32600, message: scenario.rateLimits.error } });
        return send({ id: m.id, result: scenario.rateLimits });
      }
      if (m.method === "model/list") {
        const all = scenario.models || [];
        const size = scenario.pageSize || all.length || 1;
        const start = m.params && m.params.cursor ? Number(m.params.cursor) : 0;
        const page = all.slice(start, start + size).map((id) => ({ id, model: id, hidden: false }));
        const next = start + size < all.length ? String(start + size) : null;
        return send({ id: m.id, result: { data: page, nextCursor: next } });
      }
      send({ id: m.id, error: { code: -32601, message: "unknown method" } });
    });
  } else if (argv[0] === "exec") {
    readAll((prompt) => {
      record(prompt);
      const run = scenario.run || {};
      if (run.hang) return hang();
      const json = argv.includes("--json");
      const event = (e) => json && send(e);
      event({ type: "thread.started", thread_id: "fake" });
      event({ type: "turn.started" });
      if (run.toolLoop) {
        return toolLoop((n) => {
          const item = { id: "item_" + n, type: "command_execution", command: "cat ~/secret", aggregated_output: "", exit_code: null, status: "in_progress" };
          event({ type: "item.started", item });
          event({ type: "item.completed", item: { ...item, aggregated_output: "secret", exit_code: 0, status: "completed" } });
        });
      }
      for (const e of run.events || []) event(e);
      const finish = () => {
        const out = argv[argv.indexOf("--output-last-message") + 1];
        const text = answerText(prompt, run);
        if ((run.exitCode ?? 0) === 0) fs.writeFileSync(out, text);
        event({ type: "item.completed", item: { id: "item_last", type: "agent_message", text } });
        event({ type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } });
        process.exit(run.exitCode ?? 0);
      };
      if (run.events) setTimeout(finish, 200);
      else finish();
    });
  } else {
    record("");
    process.exit(2);
  }
} else {
  if (argv[0] === "models") {
    record("");
    process.stdout.write(scenario.catalog ?? "");
    process.exit(0);
  } else if (argv[0] === "run") {
    readAll((prompt) => {
      record(prompt);
      const run = scenario.run || {};
      if (run.hang) return hang();
      const event = (e) => send({ timestamp: 0, sessionID: "ses_fake", ...e });
      if (run.toolLoop) {
        // Ignores its agent's step limit, as a CLI that goes on would.
        return toolLoop(() => {
          event({ type: "step_start", part: { type: "step-start" } });
          event({ type: "tool_use", part: { type: "tool", tool: "read", state: { status: "completed", output: "secret" } } });
          event({ type: "step_finish", part: { type: "step-finish", reason: "tool-calls" } });
        });
      }
      const events = run.events ?? [
        { type: "step_start", part: { type: "step-start" } },
        { type: "text", part: { type: "text", text: answerText(prompt, run) } },
        { type: "step_finish", part: { type: "step-finish", reason: "stop" } },
      ];
      for (const e of events) event(e);
      process.exit(run.exitCode ?? 0);
    });
  } else {
    record("");
    process.exit(2);
  }
}
`;

export interface FakeHome {
  /** The temporary HOME. */
  home: string;
  /** The PATH holding the fakes installed so far (and node, for their shebang). */
  env: Record<string, string>;
  install(name: FakeName, scenario?: ClaudeScenario | CodexScenario | OpencodeScenario): void;
  setScenario(name: FakeName, scenario: ClaudeScenario | CodexScenario | OpencodeScenario): void;
  calls(): FakeCall[];
  /** Model requests a toolLoop scenario played so far. */
  requests(): number;
  binDir: string;
  cleanup(): void;
}

/** A temporary HOME with an empty bin folder on PATH; `install` puts a fake there. */
export function fakeHome(): FakeHome {
  const t = tempDir("recall-answer-home-");
  const binDir = path.join(t.dir, "bin");
  const nodeDir = path.join(t.dir, "node-bin");
  mkdirSync(binDir);
  mkdirSync(nodeDir);
  symlinkSync(process.execPath, path.join(nodeDir, "node"));
  // Extensionless scripts are CommonJS only when no package.json above says otherwise.
  writeFileSync(path.join(binDir, "package.json"), '{"type":"commonjs"}\n');
  const callsFile = path.join(binDir, "calls.jsonl");
  const scenarioFile = (name: FakeName) => path.join(binDir, `${name}.scenario.json`);
  const env = {
    HOME: t.dir,
    PATH: `${binDir}${path.delimiter}${nodeDir}`,
    XDG_DATA_HOME: path.join(t.dir, ".local", "share"),
    XDG_CONFIG_HOME: path.join(t.dir, ".config"),
  };
  return {
    home: t.dir,
    env,
    binDir,
    install(name, scenario = {}) {
      const config = {
        name,
        flags: helpFlags(name),
        scenario: scenarioFile(name),
        calls: callsFile,
        dir: binDir,
      };
      const file = path.join(binDir, name);
      writeFileSync(file, SCRIPT.replace("__CONFIG__", JSON.stringify(config)));
      chmodSync(file, 0o755);
      this.setScenario(name, scenario);
    },
    setScenario(name, scenario) {
      writeFileSync(scenarioFile(name), JSON.stringify(scenario));
    },
    requests() {
      const file = path.join(binDir, "requests.count");
      return existsSync(file) ? readFileSync(file, "utf8").length : 0;
    },
    calls() {
      if (!existsSync(callsFile)) return [];
      return readFileSync(callsFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as FakeCall);
    },
    cleanup: t.cleanup,
  };
}

/** Whether a process still runs: gone, or a zombie waiting for a reaper that is not ours, is not. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}

/** The pid of the grandchild a hanging fake run started, once it has started. */
export function hangingGrandchild(fake: FakeHome): number | undefined {
  const file = path.join(fake.binDir, "grandchild.pid");
  return existsSync(file) ? Number(readFileSync(file, "utf8")) : undefined;
}

/** A verbose catalog in the format `opencode models --verbose` prints (as captured from 1.18.33). */
export function verboseCatalog(
  models: { id: string; input?: number; output?: number; noCost?: boolean }[],
): string {
  return models
    .map((m) => {
      const [providerID, ...rest] = m.id.split("/");
      const meta: Record<string, unknown> = { id: rest.join("/"), providerID, name: m.id, status: "active" };
      if (!m.noCost) meta.cost = { input: m.input ?? 0, output: m.output ?? 0, cache: { read: 0, write: 0 } };
      meta.limit = { context: 200000, output: 32000 };
      return `${m.id}\n${JSON.stringify(meta, null, 2)}\n`;
    })
    .join("");
}
