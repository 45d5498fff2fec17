import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeProjects, createHarness, type Harness } from "../../test/sources-harness.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { readWindowAround } from "./conversation-window.js";
import { GET_CONVERSATION_BUDGET_BYTES } from "./get-conversation.js";

const SESSION = "7e3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";

describe("conversation windows", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("keeps a window around a hit within one page's budget, the hit included", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < 60; i++)
      lines.push(
        claudeLine({
          uuid: `w${i}`,
          session: SESSION,
          text: `turn ${i} ${"gannet ".repeat(500)}`,
          at: BASE_TIME + i,
        }),
      );
    writeFileSync(path.join(dir, `${SESSION}.jsonl`), lines.join(""));
    h.index();
    for (const at of [1, 30, 58]) {
      const hit = `transcript:claude:${SESSION}:w${at}`;
      const window = readWindowAround(h.store.db, { id: hit, around: hit, limit: 100 });
      expect(Buffer.byteLength(JSON.stringify(window))).toBeLessThanOrEqual(GET_CONVERSATION_BUDGET_BYTES);
      expect(window.records.map((r) => r.id)).toContain(hit);
    }
  });
});
