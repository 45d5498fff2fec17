import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoCorpus, type DemoManifest } from "../src/demo/index.js";
import { sessionsForAlias } from "../src/search/session-aliases.js";
import { createHarness, type Harness } from "./sources-harness.js";
import { tempDir } from "./helpers/tmp.js";

let t: ReturnType<typeof tempDir>;
let manifest: DemoManifest;
let h: Harness;

beforeAll(async () => {
  t = tempDir("recall-bridge-demo-");
  const root = path.join(t.dir, "home");
  manifest = await generateDemoCorpus({
    root,
    seed: 3,
    messages: 60,
    sources: { claude: false, codex: false, opencode: false, dyad: false },
  });
  h = await createHarness({ home: root });
  h.index();
});

afterAll(() => {
  h.close();
  t.cleanup();
});

describe("demo bridge records", () => {
  it("writes a bridge store through the writer, under the default bridge root of its HOME", () => {
    expect(manifest.paths.bridgeDir).toBe(path.join(manifest.root, ".local", "share", "recall", "bridge"));
    expect(manifest.bridge).toMatchObject({ messages: 40, cold: 8, questions: 6, runs: 3, bindings: 4 });
  });

  it("indexes every demo record once: messages (live and cold), questions, decisions, runs", () => {
    const count = (kind: string) =>
      h.count("SELECT count(*) FROM recall_documents WHERE source = 'bridge' AND kind = ?", kind);
    const messages = h.count(
      "SELECT count(*) FROM recall_documents WHERE source = 'bridge' AND hit_id LIKE 'message:m-demo-%'",
    );
    expect(messages).toBe(manifest.bridge.messages);
    expect(h.count("SELECT count(*) FROM recall_documents WHERE hit_id LIKE 'message:q-demo-%'")).toBe(
      manifest.bridge.questions,
    );
    expect(count("decision")).toBe(manifest.bridge.decisions);
    expect(
      h.count("SELECT count(DISTINCT run) FROM recall_documents WHERE source = 'bridge' AND kind = 'run'"),
    ).toBe(manifest.bridge.runs);
    // Bindings became aliases: a peer names its CLI session.
    expect(sessionsForAlias(h.store.db, "builder-1")).toContain("demo-session-builder-1");
  });
});
