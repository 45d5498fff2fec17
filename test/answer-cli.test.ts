/**
 * `recall search --answer` end to end: the compiled CLI process, an index in RECALL_HOME, a
 * config.json naming the provider order, and a fake provider CLI on PATH in a temporary HOME.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { openHistoryStore } from "../src/store/history-store.js";
import type { SearchHistoryOutput } from "../src/tools/search-history.js";
import { runCli } from "./helpers/cli.js";
import { fakeHome, hangingGrandchild, processAlive, type FakeHome } from "./helpers/fake-provider.js";
import { connectMcp } from "./helpers/mcp.js";
import { seedDocuments } from "./helpers/seed.js";

const T0 = Date.UTC(2026, 0, 1);
const USAGE_OK = {
  subscription_type: "max",
  rate_limits_available: true,
  rate_limits: {
    five_hour: { utilization: 3, resets_at: null },
    seven_day: { utilization: 9, resets_at: null },
  },
};

describe("recall search --answer", () => {
  let fake: FakeHome;
  let env: Record<string, string>;
  beforeAll(async () => {
    fake = fakeHome();
    const home = path.join(fake.home, "recall");
    const store = await openHistoryStore({ home, projectionVersion: PROJECTION_VERSION });
    seedDocuments(store.db, [
      { key: "a1", text: "the flamingo migration plan was approved", at: T0 + 1000, session: "s1" },
      { key: "a2", text: "flamingo rollback discussed", at: T0 + 2000, session: "s2", agent: "codex" },
    ]);
    store.close();
    writeFileSync(
      path.join(home, "config.json"),
      JSON.stringify({ historyAnswer: { preference: ["claude", "codex"], claudeModel: "haiku" } }),
    );
    fake.install("claude", { usage: USAGE_OK, run: { text: "auto" } });
    env = { ...fake.env, RECALL_HOME: home };
  });
  afterAll(() => fake.cleanup());

  it("prints the tool's JSON with a checked, cited answer from the fake on PATH", () => {
    const r = runCli(["search", "flamingo", "migration", "--answer", "--json"], env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as SearchHistoryOutput;
    expect(out.hits.length).toBeGreaterThan(0);
    const top = out.hits[0]!;
    expect(out.answer).toEqual({
      text: `The history says so [${top.id}].`,
      agent: "claude",
      model: "haiku",
      sources: [{ id: top.id, link: top.sourceLink }],
    });
    const calls = fake.calls();
    expect(calls.map((c) => c.argv.includes("--input-format"))).toEqual([true, false]);
    expect(calls[1]!.stdin).toContain(top.id);
    // The query travels on stdin only, never in an argument list.
    expect(calls.flatMap((c) => c.argv).join(" ")).not.toContain("migration");
  });

  it("prints the answer and its sources in human output", () => {
    const r = runCli(["search", "flamingo", "--answer"], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^answer \(claude · haiku\):\nThe history says so \[transcript:\w+:/);
    expect(r.stdout).toMatch(/sources:\n {2}\[transcript:\S+\] \/api\/history\//);
  });

  it("answers an empty search with the fixed no-hits answer and runs no probe", () => {
    const before = fake.calls().length;
    const r = runCli(["search", "pelicanzzz", "--answer", "--json"], env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as SearchHistoryOutput;
    expect(out.hits).toEqual([]);
    expect(out.answer).toMatchObject({ agent: null, model: null, sources: [] });
    expect(out.answer!.text).toMatch(/nothing to answer from/);
    expect(fake.calls().length).toBe(before);
  });

  it("leaves answer out without --answer, and names a bad historyAnswer field", () => {
    const before = fake.calls().length;
    const plain = JSON.parse(runCli(["search", "flamingo", "--json"], env).stdout) as SearchHistoryOutput;
    expect(plain).not.toHaveProperty("answer");
    expect(fake.calls().length).toBe(before);
    const config = path.join(env.RECALL_HOME!, "config.json");
    const good = readFileSync(config, "utf8");
    try {
      writeFileSync(config, JSON.stringify({ historyAnswer: { preference: ["claude", "gemini"] } }));
      const bad = runCli(["search", "flamingo", "--answer", "--json"], env);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/historyAnswer\.preference\[1\]/);
    } finally {
      writeFileSync(config, good);
    }
  });

  it("ends the model run when an MCP client cancels an answered search_history call", async () => {
    fake.setScenario("claude", { usage: USAGE_OK, run: { hang: true } });
    const mcp = await connectMcp(env, { name: "recall-cancel-test" });
    try {
      const caller = new AbortController();
      const call = mcp.client.callTool(
        { name: "search_history", arguments: { query: "flamingo", answer: true } },
        undefined,
        { signal: caller.signal },
      );
      call.catch(() => {}); // rejected by the abort below; awaited after
      const deadline = Date.now() + 20_000;
      let pid: number | undefined;
      while ((pid = hangingGrandchild(fake)) === undefined && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(pid, mcp.stderr()).toBeDefined();
      caller.abort(); // the SDK sends notifications/cancelled
      await expect(call).rejects.toThrow();
      // The server stays up and the provider's process group is gone well before its 60 s timeout.
      const gone = Date.now() + 5_000;
      while (processAlive(pid!) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
      expect(processAlive(pid!)).toBe(false);
    } finally {
      await mcp.client.close();
      fake.setScenario("claude", { usage: USAGE_OK, run: { text: "auto" } });
    }
  });
});
