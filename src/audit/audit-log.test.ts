import { appendFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { appendAudit, readAudit, summariseOutput, type AuditRecord } from "./audit-log.js";

const record = (i: number): AuditRecord => ({
  at: i,
  surface: "mcp",
  tool: "search_history",
  ok: true,
  durationMs: 1,
  results: i,
  truncated: false,
  indexStatus: "ready",
  errorKind: null,
  returned: [`claude:${i}`],
});

describe("audit log", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("rotates into one previous file past its size bound and still reads the newest records first", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    for (let i = 0; i < 100; i++) appendAudit(t.dir, record(i), 2000);
    expect(readdirSync(t.dir).sort()).toEqual(["audit.1.jsonl", "audit.jsonl"]);
    const newest = readAudit(t.dir, 10);
    expect(newest.map((r) => r.at)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90]);
    // Older records than the two files hold are gone: the log is bounded.
    const all = readAudit(t.dir, 1000);
    expect(all.length).toBeLessThan(100);
    expect(all[0]!.at).toBe(99);
    expect(all.map((r) => r.at)).toEqual([...all.map((r) => r.at)].sort((a, b) => b - a));
  });

  it("names chats by the conversation id the index gives them", () => {
    const results = JSON.stringify({ results: [{ chat_id: 7 }, { chat_id: 9 }] });
    const read = JSON.stringify({ chat: { chat_id: 7 }, messages: [{}] });
    // Standalone (history.db): chat:<source>:<id>; embedded (the host's database): chat:<id>.
    expect(summariseOutput("search_chats", results, {}, "dyad").returned).toEqual([
      "chat:dyad:7",
      "chat:dyad:9",
    ]);
    expect(summariseOutput("read_chat", read, {}, "dyad").returned).toEqual(["chat:dyad:7"]);
    expect(summariseOutput("search_chats", results).returned).toEqual(["chat:7", "chat:9"]);
  });

  it("reduces search_history's coverage to one word, in its compact form or per source", () => {
    const status = (coverage: unknown) =>
      summariseOutput("search_history", JSON.stringify({ hits: [], coverage })).indexStatus;
    expect(status({ state: "ready", sources: 3, indexedThrough: 5 })).toBe("ready");
    expect(status([{ state: "ready" }, { state: "indexing" }])).toBe("indexing");
    expect(status([{ state: "indexing" }, { state: "stale" }])).toBe("stale");
    expect(status([])).toBe("empty");
  });

  it("passes over a line that is not a record instead of failing every read", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    appendAudit(t.dir, record(1));
    appendFileSync(path.join(t.dir, "audit.jsonl"), '{"broken\n42\n');
    appendAudit(t.dir, record(2));
    expect(readAudit(t.dir, 10).map((r) => r.at)).toEqual([2, 1]);
    expect(readAudit(t.dir, 1).map((r) => r.at)).toEqual([2]);
  });
});
