/**
 * The demo corpus writes Gemini CLI and Qwen Code chats in their real formats: indexed by the
 * registered sources, each message becomes one record (the Gemini reply logged twice and the
 * `$set` replay of a resumed chat included), and the sessions carry project, model and branch.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoCorpus, type DemoManifest } from "../src/demo/index.js";
import { createHarness, type Harness } from "./sources-harness.js";
import { tempDir } from "./helpers/tmp.js";

const perAgent = (h: Harness, agent: string, what = "count(*)") =>
  h.count(
    `SELECT ${what} FROM recall_records r JOIN recall_conversations c ON c.id = r.conversation WHERE c.agent = ?`,
    agent,
  );

describe("the demo corpus's Gemini CLI and Qwen Code chats", () => {
  const t = tempDir("recall-demo-agents-");
  let manifest: DemoManifest;
  let h: Harness;

  beforeAll(async () => {
    const root = path.join(t.dir, "home");
    manifest = await generateDemoCorpus({ root, seed: 3, messages: 200 });
    h = await createHarness({ home: root });
    h.index();
  });
  afterAll(() => {
    h.close();
    t.cleanup();
  });

  it("are indexed once per message, by their own agents", () => {
    expect(manifest.agents?.gemini.sessions).toBe(3);
    expect(manifest.agents?.qwen.sessions).toBe(3);
    expect(perAgent(h, "gemini")).toBe(manifest.agents!.gemini.messages);
    expect(perAgent(h, "qwen")).toBe(manifest.agents!.qwen.messages);
    // Indexing again reads nothing new.
    h.index();
    expect(perAgent(h, "gemini")).toBe(manifest.agents!.gemini.messages);
    expect(
      h.count("SELECT count(DISTINCT project) FROM recall_conversations WHERE agent IN ('gemini', 'qwen')"),
    ).toBeGreaterThan(1);
    expect(h.count("SELECT count(*) FROM recall_conversations WHERE agent = 'qwen' AND branch IS NULL")).toBe(
      0,
    );
    expect(
      h.count("SELECT count(*) FROM recall_conversations WHERE agent = 'gemini' AND model IS NULL"),
    ).toBe(0);
  });

  it("can be left out", async () => {
    const root = path.join(t.dir, "without");
    const without = await generateDemoCorpus({
      root,
      seed: 3,
      messages: 200,
      agents: { gemini: false, qwen: false },
    });
    expect(without.agents).toEqual({
      gemini: { sessions: 0, messages: 0, files: 0 },
      qwen: { sessions: 0, messages: 0, files: 0 },
    });
    expect(JSON.stringify(without.counts)).toBe(JSON.stringify(manifest.counts));
  });
});
