import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeProjects, createHarness, type Harness } from "../../test/sources-harness.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { readConversationPage } from "./get-conversation.js";

const SESSION = "5e3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";

describe("get_conversation paging", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("returns every record once when some arrive between pages, earlier-dated ones included", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${SESSION}.jsonl`);
    const line = (i: number, at: number) =>
      claudeLine({ uuid: `r${i}`, session: SESSION, text: `record ${i}`, at });
    writeFileSync(file, Array.from({ length: 12 }, (_, i) => line(i, BASE_TIME + i * 1000)).join(""));
    h.index();
    const id = `claude:${SESSION}`;
    const first = readConversationPage(h.store.db, { id, limit: 5 });
    expect(first.records.map((r) => r.id.split(":").at(-1))).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    // Written while the reader pages: one dated inside the first page, one after everything.
    appendFileSync(file, line(12, BASE_TIME + 2500) + line(13, BASE_TIME + 99_000));
    h.clock.advance(60_000);
    h.index();
    const seen = first.records.map((r) => r.id.split(":").at(-1)!);
    let next = first.next;
    while (next) {
      const page = readConversationPage(h.store.db, { id, limit: 5, after: next });
      seen.push(...page.records.map((r) => r.id.split(":").at(-1)!));
      next = page.next;
    }
    expect(seen).toHaveLength(14);
    expect(new Set(seen)).toEqual(new Set(Array.from({ length: 14 }, (_, i) => `r${i}`)));
    // A reader starting now gets them all in time order.
    const all = readConversationPage(h.store.db, { id, limit: 100 }).records.map((r) =>
      r.id.split(":").at(-1),
    );
    expect(all.slice(0, 4)).toEqual(["r0", "r1", "r2", "r12"]);
  });
});
