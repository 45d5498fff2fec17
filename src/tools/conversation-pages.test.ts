/** Pages of a retained conversation: get_conversation's forward pages and the windows around a hit. */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseInput } from "../core/validation.js";
import { contextSession } from "../../test/helpers/claude-context.js";
import { claudeProjects, createHarness, type Harness } from "../../test/sources-harness.js";
import { BASE_TIME, claudeLine } from "../../test/sources-lines.js";
import { readConversation, readWindowAround, type ConversationWindow } from "./conversation-window.js";
import {
  createGetConversationTool,
  GET_CONVERSATION_BUDGET_BYTES,
  GetConversationInput,
  readConversationPage,
} from "./get-conversation.js";
import { runTool } from "./run.js";

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
    // A document whose record is not retained is a row of its own, without an ordinal (schema 16).
    db.prepare(
      "UPDATE recall_record_rows SET ordinal = -id WHERE id = (SELECT id FROM recall_records WHERE hit_id = ?)",
    ).run(hit);
    const window = readWindowAround(db, { id: ID, around: hit, limit: 10 });
    // Five older records, then the newer page from the hit's time (it has no record).
    expect(window.records.map(keyOf).slice(0, 5)).toEqual(["r20", "r21", "r22", "r23", "r24"]);
    expect(window.records.map(keyOf)).toContain("r26");
    expect(() => readWindowAround(db, { id: ID, around: "transcript:claude:other:r1", limit: 10 })).toThrow(
      expect.objectContaining({ kind: "NotFound" }),
    );
  });

  /** An indexed session with injected context records (test/helpers/claude-context.ts). */
  async function contextRecords(turns: number, hitAt = -1) {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const made = contextSession(SESSION, turns, hitAt, "the pelican rollback decision");
    writeFileSync(path.join(dir, `${SESSION}.jsonl`), made.text);
    h.index();
    // Record id -> record key, for context records too (their id is `<conversation>#<ordinal>`).
    const keys = new Map(
      (
        h.store.db
          .prepare(
            "SELECT ordinal, record_key AS key, hit_id AS hit FROM recall_records WHERE conversation = ?",
          )
          .all(ID) as { ordinal: number; key: string; hit: string | null }[]
      ).map((r) => [r.hit ?? `${ID}#${r.ordinal}`, r.key]),
    );
    const key = (record: { id: string }) => keys.get(record.id)!;
    return { ...made, key, spoken: made.keys.filter((k) => !made.context.has(k)) };
  }

  /** Every record from the start, page by page (`after`). */
  function forward(args: { limit: number; include_context?: boolean }) {
    const pages: ConversationWindow["records"][] = [];
    let after: string | undefined;
    do {
      const page = readConversationPage(h!.store.db, { id: ID, ...args, after });
      pages.push(page.records);
      after = page.next ?? undefined;
    } while (after);
    return pages;
  }

  it("leaves injected context records out in SQL: pages stay full and cursors reach every other record once", async () => {
    const s = await contextRecords(23);
    expect(s.context.size).toBe(9);
    const pages = forward({ limit: 4 });
    expect(pages.slice(0, -1).every((p) => p.length === 4)).toBe(true);
    const records = pages.flat();
    expect(records.map(s.key)).toEqual(s.spoken);
    expect(records.some((r) => r.role === "context" || r.text.startsWith("[context"))).toBe(false);
    // Asked for, they are there, in place.
    const all = forward({ limit: 4, include_context: true }).flat();
    expect(all.map(s.key)).toEqual(s.keys);
    expect(all[0]).toMatchObject({ role: "context", text: "[context: hook_success]" });
    // A cursor from one view pages the other: positions are (time, ordinal) either way.
    const first = readConversationPage(h!.store.db, { id: ID, limit: 3 });
    const rest = readConversationPage(h!.store.db, {
      id: ID,
      limit: 100,
      after: first.next!,
      include_context: true,
    });
    expect(rest.records.map(s.key)).toEqual(s.keys.slice(s.keys.indexOf("t2") + 1));
  });

  it("opens around a hit and pages outward with prev (as before) and next (as after), context left out or kept", async () => {
    const s = await contextRecords(30, 17);
    const hit = `transcript:claude:${SESSION}:t17`;
    for (const include_context of [false, true]) {
      const expected = include_context ? s.keys : s.spoken;
      const window = readConversation(h!.store.db, { id: ID, around: hit, limit: 6, include_context });
      expect(window).toMatchObject({ focus: hit, archival_content: true });
      const seen = window.records.map(s.key);
      const at = expected.indexOf("t17");
      expect(seen).toEqual(expected.slice(at - 3, at + 3));
      let prev = (window as ConversationWindow).prev;
      while (prev) {
        const page = readConversation(h!.store.db, { id: ID, before: prev, limit: 4, include_context });
        seen.unshift(...page.records.map(s.key));
        prev = (page as ConversationWindow).prev;
      }
      let next = window.next;
      while (next) {
        const page = readConversation(h!.store.db, { id: ID, after: next, limit: 4, include_context });
        seen.push(...page.records.map(s.key));
        next = page.next;
      }
      expect(seen, `include_context ${include_context}`).toEqual(expected);
    }
  });

  it("answers a conversation of context records only with an empty page, and a context record's id only when asked", async () => {
    await contextRecords(0);
    const db = h!.store.db;
    expect(readConversationPage(db, { id: ID, limit: 5 })).toMatchObject({ records: [], next: null });
    expect(readConversationPage(db, { id: ID, limit: 5, include_context: true }).records).toHaveLength(1);
    // Context records are never indexed, so no search returns one; were one to carry a hit id,
    // `around` it is NotFound unless include_context is true.
    const planted = `transcript:claude:${SESSION}:c-hook`;
    db.prepare("UPDATE recall_record_rows SET own_hit_id = ? WHERE record_key = 'c-hook'").run(planted);
    expect(() => readWindowAround(db, { id: ID, around: planted, limit: 5 })).toThrow(
      expect.objectContaining({ kind: "NotFound" }),
    );
    const shown = readWindowAround(db, { id: ID, around: planted, limit: 5, include_context: true });
    expect(shown.records.map((r) => r.id)).toEqual([planted]);
  });

  it("get_conversation: around adds prev and focus to the same output, and at most one of around, before, after", async () => {
    const s = await contextRecords(12, 7);
    const tool = createGetConversationTool(h!.store.db);
    const hit = `transcript:claude:${SESSION}:t7`;
    const plain = JSON.parse(await runTool(tool, { id: ID, limit: 3 }, {}));
    expect(Object.keys(plain)).toEqual(["records", "next", "notice", "archival_content"]);
    const around = JSON.parse(await runTool(tool, { id: ID, around: hit, limit: 3 }, {}));
    expect(Object.keys(around)).toEqual(["records", "next", "notice", "archival_content", "prev", "focus"]);
    expect(around.records.map(s.key)).toEqual(["t6", "t7", "t8"]);
    // A hit id as `id` names its conversation too.
    expect(JSON.parse(await runTool(tool, { id: hit, around: hit, limit: 3 }, {}))).toEqual(around);
    expect(tool.description).toMatch(/around: hit\.id/);
    const refused = async (args: Record<string, unknown>) =>
      runTool(tool, { id: ID, ...args }, {}).then(
        () => "accepted",
        (e: { kind: string; message: string }) => `${e.kind} ${e.message}`,
      );
    expect(await refused({ around: hit, after: plain.next })).toBe(
      "Validation after: cannot be combined with around",
    );
    expect(await refused({ around: hit, before: around.prev })).toBe(
      "Validation before: cannot be combined with around",
    );
    expect(await refused({ before: around.prev, after: plain.next })).toBe(
      "Validation after: cannot be combined with before",
    );
    expect(await refused({ around: "pelican" })).toBe("Validation around: not a hit id (<kind>:<source id>)");
    expect(await refused({ around: "x".repeat(1001) })).toMatch(/^Validation around: /);
    expect(await refused({ include_context: "yes" })).toMatch(/^Validation include_context: /);
    expect(await refused({ around: `transcript:claude:other:t1` })).toBe(
      "NotFound around: the hit is not in this conversation",
    );
    expect(await refused({ around: `${hit}x` })).toMatch(/^NotFound /);
    expect(parseInput(GetConversationInput, { id: ID })).toEqual({
      id: ID,
      limit: 20,
      include_context: false,
      scope: "local",
    });
  });
});
