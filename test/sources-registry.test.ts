/**
 * A source is one definition plus one registry line: a toy agent registered in a temporary
 * registry shows up in every derived place, and keeps the source contract. The derived values
 * for the current sources stay as they were written before the registry existed.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BindAgent } from "../src/bridge/records.js";
import { ConfigSchema, type Config } from "../src/config/schema.js";
import { backfill } from "../src/indexer/backfill.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { searchHistory } from "../src/search/history.js";
import {
  agentHelp,
  agentNames,
  conversationIds,
  agentFilter,
  hasAgentHistory,
  lookedIn,
  otherAgents,
  sourcesConfigSchema,
  sourceDisplayNames,
  agentChoices,
  transcriptAgents,
} from "../src/sources/derive.js";
import { createSources, READABLE_SOURCES } from "../src/sources/readers.js";
import { AgentName, SOURCES } from "../src/sources/registry.js";
import { openHistoryStore } from "../src/store/history-store.js";
import { SearchHistoryInput } from "../src/tools/search-history-input.js";
import { sourceContract } from "./helpers/source-contract.js";
import { tempDir } from "./helpers/tmp.js";
import { toy, toyLine, toySessions } from "./helpers/toy-source.js";

/** The sources registered before the agents issue #34 added (claude, codex, opencode, Dyad, bridge). */
const SPEC_SOURCES = READABLE_SOURCES.filter((d) =>
  ["claude-code", "codex", "opencode", "dyad", "bridge"].includes(d.name),
);
const REGISTRY = [...SPEC_SOURCES, toy];
const T = Date.UTC(2026, 5, 1);

describe("the registry's readers", () => {
  it("are the registry's sources, in its order", () => {
    expect(READABLE_SOURCES.map((d) => d.name)).toEqual(SOURCES.map((d) => d.name));
    for (const [i, d] of READABLE_SOURCES.entries()) expect(d).toMatchObject(SOURCES[i]!);
  });
});

describe("the registry's derived values for the current sources", () => {
  it("are the ones written before the registry, for the sources registered then", () => {
    expect(agentNames(SPEC_SOURCES)).toEqual(["claude", "codex", "opencode", "other"]);
    expect(agentHelp(SPEC_SOURCES)).toBe(
      "claude | codex | opencode | other (the agent bridge and Dyad chats)",
    );
    expect(otherAgents(SPEC_SOURCES)).toEqual(["other", "dyad"]);
    expect(transcriptAgents(SPEC_SOURCES)).toBe("Claude Code, Codex, opencode");
    expect(conversationIds(SPEC_SOURCES)).toBe("claude:<session>, codex:<thread>, opencode:<session>");
    expect(sourcesConfigSchema(SPEC_SOURCES).parse({})).toEqual({
      claude: true,
      codex: true,
      opencode: true,
      dyad: true,
      dyadDatabases: [],
    });
    expect(
      lookedIn({ HOME: "/h", XDG_CONFIG_HOME: "/h/.config", XDG_DATA_HOME: "/h/.local/share" }, SPEC_SOURCES),
    ).toBe(
      "Claude Code /h/.claude, /h/.config/claude (CLAUDE_CONFIG_DIR), Codex /h/.codex (CODEX_HOME), " +
        "opencode /h/.local/share/opencode (XDG_DATA_HOME, OPENCODE_DB), Dyad /h/.config/dyad (XDG_CONFIG_HOME)",
    );
  });

  it("and with the seven agents added since: named by the filter, found by other", () => {
    const added = ["gemini", "qwen", "copilot", "pi", "cline", "kilo", "continue"];
    expect(AgentName.options).toEqual(["claude", "codex", "opencode", ...added, "other"]);
    expect(agentHelp(SOURCES)).toBe(
      `claude | codex | opencode | ${added.join(" | ")} | other (the agent bridge and Dyad chats, and ${added.join(", ")})`,
    );
    expect(otherAgents(SOURCES)).toEqual(["other", ...added, "dyad"]);
    expect(transcriptAgents(SOURCES)).toBe(
      "Claude Code, Codex, opencode, Gemini CLI, Qwen Code, GitHub Copilot CLI, pi, Cline, Kilo Code, Continue",
    );
    expect(conversationIds(SOURCES)).toBe(
      [
        "claude:<session>",
        "codex:<thread>",
        "opencode:<session>",
        ...added.map((a) => `${a}:<session>`),
      ].join(", "),
    );
    expect(ConfigSchema.parse({}).sources).toEqual({
      claude: true,
      codex: true,
      opencode: true,
      gemini: true,
      qwen: true,
      copilot: true,
      pi: true,
      cline: true,
      kilo: true,
      continue: true,
      dyad: true,
      dyadDatabases: [],
    });
    for (const agent of added)
      expect(SearchHistoryInput.safeParse({ query: "x", filters: { agent } }).success, agent).toBe(true);
  });

  it("and the names status, coverage and the dashboard show", () => {
    expect(sourceDisplayNames(SOURCES)).toMatchObject({
      "claude-code": "Claude Code",
      "gemini-cli": "Gemini CLI",
      "qwen-code": "Qwen Code",
      "copilot-cli": "GitHub Copilot CLI",
      kilo: "Kilo Code",
    });
    expect(agentChoices(SOURCES).slice(0, 4)).toEqual([
      { value: "claude", label: "Claude Code" },
      { value: "codex", label: "Codex" },
      { value: "opencode", label: "opencode" },
      { value: "gemini", label: "Gemini CLI" },
    ]);
  });

  it("and the bridge writer's bind agents (below sources/, so listed there) are the agent filter's", () => {
    expect(BindAgent.options).toEqual(AgentName.options);
  });
});

describe("a toy source added in one definition and one registry line", () => {
  it("is named by --agent help, the agent filter and search_history's description", () => {
    expect(agentNames(REGISTRY)).toEqual(["claude", "codex", "opencode", "toy", "other"]);
    expect(agentHelp(REGISTRY)).toBe(
      "claude | codex | opencode | toy | other (the agent bridge and Dyad chats)",
    );
    expect(otherAgents(REGISTRY)).not.toContain("toy");
    // An agent added after the spec's three is named, and `other` still finds it.
    const later = [...SPEC_SOURCES, { ...toy, filter: { own: true, other: true } as const }];
    expect(agentNames(later)).toEqual(["claude", "codex", "opencode", "toy", "other"]);
    expect(otherAgents(later)).toEqual(["other", "dyad", "toy"]);
    expect(agentHelp(later)).toBe(
      "claude | codex | opencode | toy | other (the agent bridge and Dyad chats, and toy)",
    );
    expect(transcriptAgents(REGISTRY)).toBe("Claude Code, Codex, opencode, Toy Agent");
    expect(conversationIds(REGISTRY)).toContain("toy:<session>");
    // search_history's own schema keeps the exact contract; the toy registry's has the agent.
    expect(SearchHistoryInput.safeParse({ query: "x", filters: { agent: "toy" } }).success).toBe(false);
  });

  it("has its config.json switch, checked like every other field", () => {
    const schema = sourcesConfigSchema(REGISTRY);
    expect(schema.parse(undefined)).toMatchObject({ claude: true, toy: true });
    expect(schema.parse({ toy: false })).toMatchObject({ toy: false });
    const wrong = schema.safeParse({ toy: "yes" });
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues[0]?.path).toEqual(["toy"]);
  });

  it("is detected by npm start and named where recall looked", () => {
    const t = tempDir("recall-toy-");
    try {
      const env = {
        HOME: t.dir,
        XDG_CONFIG_HOME: path.join(t.dir, "c"),
        XDG_DATA_HOME: path.join(t.dir, "d"),
      };
      expect(hasAgentHistory(env, REGISTRY)).toBe(false);
      expect(lookedIn(env, REGISTRY)).toMatch(
        new RegExp(`, Toy Agent ${toySessions(env).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(TOY_HOME\\)$`),
      );
      mkdirSync(toySessions(env), { recursive: true });
      writeFileSync(path.join(toySessions(env), "s1.jsonl"), toyLine(T, "hello"));
      expect(hasAgentHistory(env, REGISTRY)).toBe(true);
      expect(hasAgentHistory(env, SOURCES)).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it("is indexed beside the others and found with the agent filter", async () => {
    const t = tempDir("recall-toy-");
    const store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const env = { HOME: path.join(t.dir, "home") };
    const config = { ...ConfigSchema.parse({}), sources: sourcesConfigSchema(REGISTRY).parse({}) } as Config;
    const sources = createSources(env, config, {}, REGISTRY);
    try {
      expect(sources.map((s) => s.name)).toEqual([
        "claude-code",
        "codex",
        "opencode",
        "dyad",
        "bridge",
        "toy",
      ]);
      mkdirSync(toySessions(env), { recursive: true });
      appendFileSync(path.join(toySessions(env), "s1.jsonl"), toyLine(T, "the flamingoword plan"));
      backfill(store.db, sources, { projectionVersion: PROJECTION_VERSION, clock: { now: () => T } });
      const hits = searchHistory(
        store.db,
        store.engine,
        "flamingoword",
        agentFilter("toy", REGISTRY),
        10,
      ).hits;
      expect(hits.map((h) => [h.id, h.conversation])).toEqual([["transcript:toy:s1:0", "toy:s1"]]);
      expect(
        searchHistory(store.db, store.engine, "flamingoword", agentFilter("claude", REGISTRY), 10).hits,
      ).toEqual([]);
      expect(
        searchHistory(store.db, store.engine, "flamingoword", agentFilter("other", REGISTRY), 10).hits,
      ).toEqual([]);
      const off = { ...config, sources: { ...config.sources, toy: false } } as Config;
      expect(createSources(env, off, {}, REGISTRY).map((s) => s.name)).not.toContain("toy");
    } finally {
      for (const s of sources) s.close?.();
      store.close();
      t.cleanup();
    }
  });
});

const TOY_A = (env: { HOME?: string }) => path.join(toySessions(env), "alpha.jsonl");
const TOY_B = (env: { HOME?: string }) => path.join(toySessions(env), "beta.jsonl");
function put(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

sourceContract(toy, {
  write(env) {
    put(TOY_A(env), toyLine(T, "first ocelotword") + toyLine(T + 1, "then pangolinword", "assistant"));
    put(TOY_B(env), toyLine(T + 2, "other quokkaword"));
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "beta", tokens: ["quokkaword"] },
  remove: (env) => rmSync(TOY_A(env)),
  torn: {
    begin: (env) => appendFileSync(TOY_A(env), toyLine(T + 3, "late tapirword").slice(0, 20)),
    finish: (env) => appendFileSync(TOY_A(env), toyLine(T + 3, "late tapirword").slice(20)),
    token: "tapirword",
  },
  oversized: {
    write: (env) => appendFileSync(TOY_A(env), toyLine(T + 4, `walrusword ${"lorem ipsum ".repeat(20_000)}`)),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
});
