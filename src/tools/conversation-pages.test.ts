/** Pages of a retained conversation: get_conversation's forward pages and the windows around a hit. */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeProjects, createHarness, type Harness } from "../../test/sources-harness.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { readWindowAround } from "./conversation-window.js";
import { GET_CONVERSATION_BUDGET_BYTES, readConversationPage } from "./get-conversation.js";

const SESSION = "5e3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
const ID = `claude:${SESSION}`;
const keyOf = (record: { id: string }) => record.id.split(":").at(-1)!;

describe("conversation pages", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  /** An indexed Claude session of `count` records (`r<i>`, a second apart); returns its file. */
  async function session(count: number, text = (i: number) => `record ${i}`): Promise<string> {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${SESSION}.jsonl`);
    writeFileSync(
      file,
      Array.from({ length: count }, (_, i) =>
        claudeLine({ uuid: `r${i}`, session: SESSION, text: text(i), at: BASE_TIME + i * 1000 }),
      ).join(""),
    );
    h.index();
    return file;
  }

  it("get_conversation returns every record once when some arrive between pages, earlier-dated ones included", async () => {
    const file = await session(12);
    const first = readConversationPage(h!.store.db, { id: ID, limit: 5 });
    expect(first.records.map(keyOf)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
    // Written while the reader pages: one dated inside the first page, one after everything.
    appendFileSync(
      file,
      claudeLine({ uuid: "r12", session: SESSION, text: "record 12", at: BASE_TIME + 2500 }) +
        claudeLine({ uuid: "r13", session: SESSION, text: "record 13", at: BASE_TIME + 99_000 }),
    );
    h!.clock.advance(60_000);
    h!.index();
    const seen = first.records.map(keyOf);
    let next = first.next;
    while (next) {
      const page = readConversationPage(h!.store.db, { id: ID, limit: 5, after: next });
      seen.push(...page.records.map(keyOf));
      next = page.next;
    }
    expect(seen).toHaveLength(14);
    expect(new Set(seen)).toEqual(new Set(Array.from({ length: 14 }, (_, i) => `r${i}`)));
    // A reader starting now gets them all in time order.
    const all = readConversationPage(h!.store.db, { id: ID, limit: 100 }).records.map(keyOf);
    expect(all.slice(0, 4)).toEqual(["r0", "r1", "r2", "r12"]);
  });

  it("keeps a window around a hit within one page's budget, the hit included", async () => {
    await session(60, (i) => `turn ${i} ${"gannet ".repeat(500)}`);
    for (const at of [1, 30, 58]) {
      const hit = `transcript:claude:${SESSION}:r${at}`;
      const window = readWindowAround(h!.store.db, { id: hit, around: hit, limit: 100 });
      expect(Buffer.byteLength(JSON.stringify(window))).toBeLessThanOrEqual(GET_CONVERSATION_BUDGET_BYTES);
      expect(window.records.map((r) => r.id)).toContain(hit);
    }
  });

  it("opens a window at a hit's time when its record is not retained under it, and refuses another conversation's hit", async () => {
    await session(40);
    const db = h!.store.db;
    const hit = `transcript:claude:${SESSION}:r25`;
    db.prepare("UPDATE recall_records SET hit_id = NULL WHERE hit_id = ?").run(hit);
    const window = readWindowAround(db, { id: ID, around: hit, limit: 10 });
    // Five older records, then the newer page from the hit's time (its record carries no hit id).
    expect(window.records.map(keyOf).slice(0, 5)).toEqual(["r20", "r21", "r22", "r23", "r24"]);
    expect(window.records.map(keyOf)).toContain("r26");
    expect(() => readWindowAround(db, { id: ID, around: "transcript:claude:other:r1", limit: 10 })).toThrow(
      expect.objectContaining({ kind: "NotFound" }),
    );
  });
});
