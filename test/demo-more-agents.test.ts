/**
 * The demo corpus carries small GitHub Copilot CLI and pi corpora in their real formats, found
 * where the CLIs keep them under the demo's HOME and indexed by their sources.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../src/config/schema.js";
import { generateDemoCorpus } from "../src/demo/index.js";
import { backfill } from "../src/indexer/backfill.js";
import { PROJECTION_VERSION } from "../src/projection/index.js";
import { searchHistory } from "../src/search/history.js";
import { hasAgentHistory } from "../src/sources/derive.js";
import { copilot } from "../src/sources/copilot/definition.js";
import { pi } from "../src/sources/pi/definition.js";
import { createSources, READABLE_SOURCES } from "../src/sources/readers.js";
import { openHistoryStore } from "../src/store/history-store.js";
import { tempDir } from "./helpers/tmp.js";

describe("the demo corpus's GitHub Copilot CLI and pi sessions", () => {
  it("are written by default, in the CLIs' own folders, and indexed as those agents", async () => {
    const t = tempDir("recall-demo-more-");
    const root = path.join(t.dir, "demo");
    const manifest = await generateDemoCorpus({ root, seed: 1, messages: 120 });
    const store = await openHistoryStore({
      home: path.join(t.dir, "recall"),
      projectionVersion: PROJECTION_VERSION,
    });
    const env = { HOME: root };
    const readers = READABLE_SOURCES.filter((d) => d.name === copilot.name || d.name === pi.name);
    const sources = createSources(env, { ...ConfigSchema.parse({}) }, {}, readers);
    try {
      expect(manifest.moreAgents.copilot).toMatchObject({ sessions: 4, files: 4 });
      expect(manifest.moreAgents.pi).toMatchObject({ sessions: 4, files: 4 });
      expect(manifest.paths.copilotHome).toBe(path.join(root, ".copilot"));
      expect(manifest.paths.piAgentDir).toBe(path.join(root, ".pi", "agent"));
      expect(hasAgentHistory(env, [copilot])).toBe(true);
      expect(hasAgentHistory(env, [pi])).toBe(true);

      backfill(store.db, sources, {
        projectionVersion: PROJECTION_VERSION,
        clock: { now: () => Date.UTC(2027, 0, 1) },
      });
      const rows = store.db
        .prepare(
          "SELECT c.agent, d.role FROM recall_documents d JOIN recall_conversations c ON c.id = d.conversation",
        )
        .all() as { agent: string; role: string }[];
      for (const agent of ["copilot", "pi"]) {
        const mine = rows.filter((r) => r.agent === agent);
        const total = manifest.moreAgents[agent as "copilot" | "pi"].messages;
        // Each exchange: the prompt, the intro with its call, the output and the reply.
        expect(mine.length, agent).toBe(total);
        expect(new Set(mine.map((r) => r.role))).toEqual(new Set(["user", "assistant", "tool"]));
      }
      const hits = searchHistory(store.db, store.engine, "main", { agents: ["copilot", "pi"] }, 10).hits;
      expect(hits.every((h) => h.agent === "copilot" || h.agent === "pi")).toBe(true);
    } finally {
      for (const s of sources) s.close?.();
      store.close();
      t.cleanup();
    }
  });
});
