/**
 * Issue #38: answers run sealed. Against fake provider CLIs in temporary homes: no paid-credit
 * keys or overrides in any provider process (1), no tools and a stop at the first tool call (2),
 * no user configuration (3), one model turn (4), nothing left in a CLI's folders (5), and
 * opencode answering from its zero-priced catalog (6; item 7 is in answer.test.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerFromHits, type AnswerOptions } from "../src/answer/answer.js";
import {
  allowListedEnv,
  claudeEnv,
  claudeProjectDirs,
  codexEnv,
  OPENCODE_CONFIG,
  opencodeEnv,
} from "../src/answer/env.js";
import { removingNewDirs } from "../src/answer/home.js";
import { runProcess } from "../src/answer/process.js";
import { CODEX_DISABLED_FEATURES, watchCodexEvents } from "../src/answer/providers/codex.js";
import { watchOpencodeEvents } from "../src/answer/providers/opencode.js";
import type { AnswerHit } from "../src/answer/types.js";
import { HistoryAnswerConfig } from "../src/config/schema.js";
import { fakeHome, verboseCatalog, type FakeHome } from "./helpers/fake-provider.js";

const hits: AnswerHit[] = [1, 2].map((i) => ({
  id: `message:${i}`,
  kind: "message",
  agent: "claude",
  at: Date.UTC(2026, 0, 1) + i,
  snippet: `flamingo note ${i}`,
  sourceLink: `/api/history/message%3A${i}`,
  project: "/p/alpha",
}));

const CLAUDE_OK = {
  rate_limits_available: true,
  rate_limits: { five_hour: { utilization: 12, resets_at: null } },
};
const CODEX_OK = {
  rateLimits: {
    limitId: "codex",
    primary: { usedPercent: 12, windowDurationMins: 300, resetsAt: null },
    secondary: null,
    rateLimitReachedType: null,
  },
  ordinaryUsageAllowed: true,
};
const CODEX_MODELS = ["gpt-6-luna"];
const CATALOG = verboseCatalog([{ id: "opencode/big-pickle" }]);

/** What the user's shell may hold for other work; none of it may reach a provider process. */
const FOREIGN = {
  CODEX_API_KEY: "sk-codex-canary",
  OPENAI_API_KEY: "sk-openai-canary",
  ANTHROPIC_API_KEY: "sk-ant-canary",
  ANTHROPIC_AUTH_TOKEN: "ant-token-canary",
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  ALL_PROXY: "socks5://127.0.0.1:9",
  NODE_OPTIONS: "--no-warnings",
  CLAUDE_CODE_USE_BEDROCK: "1",
  OPENCODE_CONFIG: "/nonexistent/opencode.json",
  OPENCODE_CONFIG_DIR: "/nonexistent",
  GITHUB_TOKEN: "ghp_canary",
};

let fake: FakeHome;
beforeEach(() => {
  fake = fakeHome();
});
afterEach(() => fake.cleanup());

const home = (...parts: string[]) => path.join(fake.home, ...parts);
function plant(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
function options(config: Partial<HistoryAnswerConfig>, extra: Partial<AnswerOptions> = {}): AnswerOptions {
  return {
    config: HistoryAnswerConfig.parse(config),
    env: fake.env,
    timeouts: { probeMs: 10_000, generationMs: 20_000 },
    ...extra,
  };
}
const callsOf = (name: string) => fake.calls().filter((c) => c.name === name);

describe("1. every provider process gets an allow-listed environment", () => {
  it("keeps PATH, HOME, locale and login locations, and drops keys, URLs, proxies and options", () => {
    const env = {
      ...FOREIGN,
      PATH: "/bin",
      HOME: "/home/u",
      USER: "u",
      LANG: "de_DE.UTF-8",
      LC_ALL: "de_DE.UTF-8",
      TMPDIR: "/tmp/u",
      CLAUDE_CONFIG_DIR: "/cfg/claude",
      CODEX_HOME: "/cfg/codex",
      XDG_DATA_HOME: "/data",
    };
    const base = allowListedEnv(env);
    expect(base).toEqual({
      PATH: "/bin",
      HOME: "/home/u",
      USER: "u",
      LANG: "de_DE.UTF-8",
      LC_ALL: "de_DE.UTF-8",
      TMPDIR: "/tmp/u",
    });
    const claude = claudeEnv(env);
    expect(claude).toMatchObject({ ...base, CLAUDE_CONFIG_DIR: "/cfg/claude" });
    const codex = codexEnv(env, "/s");
    expect(codex).toMatchObject({ PATH: "/bin", CODEX_HOME: "/s/codex/codex-home", HOME: "/s/codex/home" });
    const opencode = opencodeEnv(env, "/s");
    expect(opencode).toMatchObject({
      PATH: "/bin",
      HOME: "/s/opencode/home",
      XDG_CONFIG_HOME: "/s/opencode/config",
      XDG_DATA_HOME: "/s/opencode/data",
      XDG_CACHE_HOME: "/home/u/.cache",
    });
    for (const built of [claude, codex, opencode]) {
      for (const key of Object.keys(FOREIGN)) expect(built).not.toHaveProperty(key);
    }
  });

  it("no probe or answer run of any provider carries an API key, base URL, proxy or NODE_OPTIONS", async () => {
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { text: "auto" } });
    fake.install("claude", { usage: CLAUDE_OK, run: { text: "auto" } });
    fake.install("opencode", { catalog: CATALOG, run: { text: "auto" } });
    const env = { ...fake.env, ...FOREIGN, LANG: "C.UTF-8" };
    for (const provider of ["codex", "claude", "opencode"] as const) {
      const answer = await answerFromHits("q", hits, options({ preference: [provider] }, { env }));
      expect(answer, provider).toMatchObject({ agent: provider, text: "The history says so [message:1]." });
    }
    const calls = fake.calls();
    // A usage or catalog probe and an answer run for each of the three.
    expect(calls.map((c) => `${c.name} ${c.argv[0]}`)).toEqual([
      "codex app-server",
      "codex exec",
      "claude -p",
      "claude -p",
      "opencode models",
      "opencode run",
    ]);
    for (const call of calls) {
      for (const key of Object.keys(FOREIGN))
        expect(call.env, `${call.name}: ${key}`).not.toHaveProperty(key);
      expect(call.env.LANG).toBe("C.UTF-8");
      expect(call.env.PATH).toBe(fake.env.PATH);
    }
  });
});

describe("2. no tools in the answer run", () => {
  it("runs codex exec with its tool features and web search off, and no AGENTS.md bytes", async () => {
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { text: "auto" } });
    await answerFromHits("q", hits, options({ preference: ["codex"] }));
    const argv = callsOf("codex").find((c) => c.argv[0] === "exec")!.argv;
    const overrides = argv.filter((_, i) => argv[i - 1] === "-c");
    for (const feature of ["shell_tool", "unified_exec", "code_mode", "multi_agent", "apps", "plugins"]) {
      expect(overrides).toContain(`features.${feature}=false`);
    }
    expect(overrides).toHaveLength(CODEX_DISABLED_FEATURES.length + 3);
    expect(overrides).toEqual(
      expect.arrayContaining(['web_search="disabled"', 'approval_policy="never"', "project_doc_max_bytes=0"]),
    );
    expect(argv).toContain("--json");
  });

  it("stops a Codex run at its first tool call and drops the answer that follows", async () => {
    const tool = {
      id: "i1",
      type: "command_execution",
      command: "cat ~/x",
      aggregated_output: "",
      status: "in_progress",
    };
    fake.install("codex", {
      rateLimits: CODEX_OK,
      models: CODEX_MODELS,
      run: { text: "auto", events: [{ type: "item.started", item: tool }] },
    });
    const answer = await answerFromHits("q", hits, options({ preference: ["codex"] }));
    expect(answer).toMatchObject({
      text: "",
      agent: "codex",
      error: "codex tried to use a tool (command_execution)",
    });
    expect(answer.sources.map((s) => s.id)).toEqual(["message:1", "message:2"]);
  });

  it("reads only the model's own words as harmless in Codex's event stream", () => {
    const item = (type: string) => JSON.stringify({ type: "item.started", item: { id: "1", type } });
    const verdicts = (lines: string[]) => {
      const watch = watchCodexEvents();
      return lines.map((l) => watch(l));
    };
    expect(
      verdicts([
        '{"type":"thread.started","thread_id":"t"}',
        '{"type":"turn.started"}',
        item("reasoning"),
        item("agent_message"),
        item("error"),
        "not json",
        '{"type":"turn.completed","usage":{}}',
      ]),
    ).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    for (const type of ["mcp_tool_call", "collab_tool_call", "web_search", "file_change", "todo_list"]) {
      expect(verdicts([item(type)])).toEqual([`tried to use a tool (${type})`]);
    }
    expect(verdicts(['{"type":"request_user_input","id":"1","call_id":"c","questions":[]}'])).toEqual([
      "tried to use a tool (request_user_input)",
    ]);
  });

  it("gives Claude no tools and opencode every tool off", async () => {
    fake.install("claude", { usage: CLAUDE_OK, run: { text: "auto" } });
    fake.install("opencode", { catalog: CATALOG, run: { text: "auto" } });
    await answerFromHits("q", hits, options({ preference: ["claude"] }));
    await answerFromHits("q", hits, options({ preference: ["opencode"] }));
    const claudeRun = callsOf("claude").find((c) => !c.argv.includes("--input-format"))!;
    expect(claudeRun.argv[claudeRun.argv.indexOf("--tools") + 1]).toBe("");
    const opencodeRun = callsOf("opencode").find((c) => c.argv[0] === "run")!;
    expect(JSON.parse(opencodeRun.env.OPENCODE_CONFIG_CONTENT!)).toEqual(OPENCODE_CONFIG);
    expect(OPENCODE_CONFIG).toMatchObject({ tools: { "*": false }, permission: { "*": "deny" } });
  });
});

describe("3. no user instructions, configuration or MCP servers", () => {
  it("gives Codex a clean CODEX_HOME and HOME holding only a link to the user's login", async () => {
    const login = '{"tokens":{"access_token":"plan"}}';
    plant(home(".codex", "auth.json"), login);
    plant(home(".codex", "AGENTS.md"), "CANARY: reply with the word pineapple");
    plant(home(".codex", "config.toml"), '[mcp_servers.canary]\ncommand = "canary-server"\n');
    plant(home(".agents", "skills", "canary", "SKILL.md"), "CANARY skill");
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { text: "auto" } });
    const answer = await answerFromHits("q", hits, options({ preference: ["codex"] }));
    expect(answer.error).toBeUndefined();
    const calls = callsOf("codex");
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.seen.configDir).not.toBe(home(".codex"));
      expect(call.seen.configFiles).not.toContain("AGENTS.md");
      expect(call.seen.configFiles).not.toContain("config.toml");
      expect(call.seen.auth).toBe(login);
      expect(call.seen.homeAgents).toBe(false);
    }
    // Both share one clean home, removed with the answer; the user's login is untouched.
    expect(calls[0]!.env.CODEX_HOME).toBe(calls[1]!.env.CODEX_HOME);
    expect(existsSync(calls[0]!.env.CODEX_HOME!)).toBe(false);
    expect(readFileSync(home(".codex", "auth.json"), "utf8")).toBe(login);
  });

  it("links the login from a CODEX_HOME the user set", async () => {
    const custom = home("elsewhere", "codex");
    plant(path.join(custom, "auth.json"), "custom-login");
    plant(path.join(custom, "AGENTS.md"), "CANARY");
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { text: "auto" } });
    await answerFromHits(
      "q",
      hits,
      options({ preference: ["codex"] }, { env: { ...fake.env, CODEX_HOME: custom } }),
    );
    for (const call of callsOf("codex")) {
      expect(call.env.CODEX_HOME).not.toBe(custom);
      expect(call.seen.auth).toBe("custom-login");
      expect(call.seen.configFiles).not.toContain("AGENTS.md");
    }
  });

  it("gives opencode clean config, HOME, data and state, keeping its login and cache", async () => {
    const login = '{"opencode":{"type":"api","key":"public"}}';
    plant(home(".local", "share", "opencode", "auth.json"), login);
    plant(
      home(".config", "opencode", "opencode.json"),
      '{"mcp":{"canary":{"type":"local","command":["canary"]}}}',
    );
    plant(home(".config", "opencode", "AGENTS.md"), "CANARY instructions");
    plant(home(".opencode", "opencode.json"), '{"mcp":{"canary2":{}}}');
    plant(home(".agents", "skills", "canary", "SKILL.md"), "CANARY skill");
    fake.install("opencode", { catalog: CATALOG, run: { text: "auto" } });
    const answer = await answerFromHits("q", hits, options({ preference: ["opencode"] }));
    expect(answer.error).toBeUndefined();
    const calls = callsOf("opencode");
    expect(calls.map((c) => c.argv[0])).toEqual(["models", "run"]);
    for (const call of calls) {
      // The catalog probe reads the same clean configuration as the run.
      expect(call.seen.configFiles).toEqual([]);
      expect(call.seen.homeOpencode).toBe(false);
      expect(call.seen.homeAgents).toBe(false);
      expect(call.seen.auth).toBe(login);
      expect(call.env.XDG_CACHE_HOME).toBe(home(".cache"));
      expect(call.env.HOME).not.toBe(fake.home);
    }
  });
});

describe("4. at most one model turn", () => {
  const quick = { probeMs: 10_000, generationMs: 30_000, totalMs: 40_000 };

  it("Claude runs with --max-turns 1: a model that keeps asking for tools makes one request", async () => {
    fake.install("claude", { usage: CLAUDE_OK, run: { toolLoop: true } });
    const started = Date.now();
    const answer = await answerFromHits("q", hits, options({ preference: ["claude"] }, { timeouts: quick }));
    expect(answer).toMatchObject({
      text: "",
      agent: "claude",
      error: "claude stopped at its one-turn limit (the model asked for a tool)",
    });
    expect(fake.requests()).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("opencode is stopped at the first tool call, long before the deadline", async () => {
    fake.install("opencode", { catalog: CATALOG, run: { toolLoop: true } });
    const started = Date.now();
    const answer = await answerFromHits(
      "q",
      hits,
      options({ preference: ["opencode"] }, { timeouts: quick }),
    );
    expect(answer).toMatchObject({ text: "", error: "opencode tried to use a tool" });
    expect(fake.requests()).toBeLessThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("Codex is stopped at the first tool call, long before the deadline", async () => {
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { toolLoop: true } });
    const started = Date.now();
    const answer = await answerFromHits("q", hits, options({ preference: ["codex"] }, { timeouts: quick }));
    expect(answer).toMatchObject({ text: "", error: "codex tried to use a tool (command_execution)" });
    expect(fake.requests()).toBeLessThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("stops opencode at a second model step and Codex at a second turn, tools or not", () => {
    const opencode = watchOpencodeEvents();
    expect(['{"type":"step_start"}', '{"type":"text"}', '{"type":"step_finish"}'].map(opencode)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(opencode('{"type":"step_start"}')).toBe("started a second model step");
    const codex = watchCodexEvents();
    expect(codex('{"type":"turn.started"}')).toBeUndefined();
    expect(codex('{"type":"turn.started"}')).toBe("started a second turn");
  });

  it("a watched process is killed, with its group, as soon as a line says so", async () => {
    const started = Date.now();
    const result = await runProcess({
      command: process.execPath,
      args: [
        "-e",
        "let n = 0; setInterval(() => process.stdout.write(JSON.stringify({ n: n++ }) + '\\n'), 5)",
      ],
      cwd: fake.home,
      env: fake.env,
      timeoutMs: 20_000,
      watch: (line) => ((JSON.parse(line) as { n: number }).n === 3 ? "saw three" : undefined),
    });
    expect(result).toMatchObject({ stoppedBy: "saw three", timedOut: false, signal: "SIGKILL" });
    expect(result.stdout.split("\n").filter(Boolean).length).toBeGreaterThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("5. nothing left in a CLI's folders", () => {
  it("removes the projects/<cwd>/memory folder Claude makes for the answer, and nothing else", async () => {
    plant(home(".claude", "projects", "-home-u-work", "memory", "MEMORY.md"), "the user's own");
    fake.install("claude", { usage: CLAUDE_OK, run: { text: "auto" } });
    const answer = await answerFromHits("q", hits, options({ preference: ["claude"] }));
    expect(answer.error).toBeUndefined();
    const cwd = callsOf("claude")[0]!.cwd;
    const made = cwd.replace(/[^a-zA-Z0-9]/g, "-");
    expect(made).toMatch(/recall-answer-/);
    expect(readdirSync(home(".claude", "projects"))).toEqual(["-home-u-work"]);
    expect(readFileSync(home(".claude", "projects", "-home-u-work", "memory", "MEMORY.md"), "utf8")).toBe(
      "the user's own",
    );
  });

  it("also under a CLAUDE_CONFIG_DIR, and when the run fails", async () => {
    const config = home("claude-config");
    fake.install("claude", { usage: CLAUDE_OK, run: { text: "uncited" } });
    const env = { ...fake.env, CLAUDE_CONFIG_DIR: config };
    const answer = await answerFromHits("q", hits, options({ preference: ["claude"] }, { env }));
    expect(answer.error).toBe("the answer cited no source");
    expect(callsOf("claude").every((c) => c.env.CLAUDE_CONFIG_DIR === config)).toBe(true);
    expect(readdirSync(path.join(config, "projects"))).toEqual([]);
    expect(existsSync(home(".claude", "projects"))).toBe(false);
  });

  it("Codex and opencode write their state into the answer's scratch folder, which goes", async () => {
    plant(home(".codex", "auth.json"), "codex-login");
    plant(home(".local", "share", "opencode", "auth.json"), "opencode-login");
    fake.install("codex", { rateLimits: CODEX_OK, models: CODEX_MODELS, run: { text: "auto" } });
    fake.install("opencode", { catalog: CATALOG, run: { text: "auto" } });
    await answerFromHits("q", hits, options({ preference: ["codex"] }));
    await answerFromHits("q", hits, options({ preference: ["opencode"] }));
    // The fakes log as the real CLIs do; none of it lands in the user's folders.
    expect(readdirSync(home(".codex"))).toEqual(["auth.json"]);
    expect(readdirSync(home(".local", "share", "opencode"))).toEqual(["auth.json"]);
    expect(readFileSync(home(".codex", "auth.json"), "utf8")).toBe("codex-login");
    expect(readFileSync(home(".local", "share", "opencode", "auth.json"), "utf8")).toBe("opencode-login");
    for (const call of fake.calls()) {
      expect(existsSync(path.dirname(call.cwd)), call.name).toBe(false);
    }
  });

  it("removes only the folders a run created", async () => {
    const before = home("projects", "old");
    const fresh = home("projects", "new");
    mkdirSync(before, { recursive: true });
    await removingNewDirs([before, fresh], async () => {
      mkdirSync(path.join(fresh, "memory"), { recursive: true });
      mkdirSync(path.join(before, "memory"), { recursive: true });
    });
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(path.join(before, "memory"))).toBe(true);
    expect(claudeProjectDirs({ HOME: "/h" }, ["/tmp/recall-answer-a1/work"])).toEqual([
      "/h/.claude/projects/-tmp-recall-answer-a1-work",
    ]);
  });
});

describe("6. opencode answers when its catalog prices a model at zero", () => {
  it("is chosen in the default order when it is the one installed, with a configured zero-priced model", async () => {
    fake.install("opencode", {
      catalog: verboseCatalog([
        { id: "anthropic/claude-fable-5", input: 3, output: 15 },
        { id: "opencode/big-pickle" },
      ]),
      run: { text: "auto" },
    });
    const byDefault = await answerFromHits("q", hits, options({}));
    expect(byDefault).toMatchObject({ agent: "opencode", model: "opencode/big-pickle" });
    expect(byDefault.error).toBeUndefined();
    const configured = await answerFromHits("q", hits, options({ opencodeModel: "opencode/big-pickle" }));
    expect(configured).toMatchObject({ agent: "opencode", model: "opencode/big-pickle" });
    const priced = await answerFromHits("q", hits, options({ opencodeModel: "anthropic/claude-fable-5" }));
    expect(priced.error).toMatch(/does not price anthropic\/claude-fable-5 at zero/);
    expect(callsOf("opencode").filter((c) => c.argv[0] === "run")).toHaveLength(2);
  });
});
