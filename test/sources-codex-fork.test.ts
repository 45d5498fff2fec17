/**
 * A Codex fork rollout starts with its own session_meta (`forked_from_id`), replays the parent's
 * items (its session_meta, messages, thread name), then holds the fork's own turns. The replay
 * is indexed once, in the parent's conversation; the fork gets only its own turns, its own
 * title and the parent link — also when the fork is read across polls with a restart between.
 */
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionsForAlias } from "../src/search/session-aliases.js";
import { MAX_HELD_RECORDS } from "../src/sources/codex/source.js";
import { codexSessions, createHarness, type Harness } from "./sources-harness.js";
import {
  BASE_TIME,
  codexAgentTurn,
  codexForkMeta,
  codexMeta,
  codexThreadName,
  codexTurnContext,
  codexUserTurn,
} from "./sources-lines.js";
import { documentRows } from "./helpers/document-text.js";

const PARENT = "019a0000-6666-7777-8888-99990000aaaa";
const FORK = "019a0000-7777-7888-8999-0000aaaabbbb";

const parentLines = [
  codexMeta(PARENT),
  codexTurnContext(),
  codexUserTurn(PARENT, "how should the heron migration split the ledger", BASE_TIME, "p1"),
  codexAgentTurn(PARENT, "split the heron ledger by quarter", BASE_TIME + 1, "p2"),
  codexThreadName(PARENT, "Heron migration", BASE_TIME + 2),
].join("");

/**
 * The fork's rollout: own meta, the verbatim replay, then its own part. Its first line names no
 * thread (a rename without thread_id), so it waits for the verdict of the fork's first event;
 * the fork's own rename comes last, after the records that carry the earlier title.
 */
const forkLines = [
  codexForkMeta(FORK, PARENT, BASE_TIME + 10),
  ...parentLines.split(/(?<=\n)/),
  codexThreadName(null, "Kestrel variant", BASE_TIME + 11),
  codexTurnContext(BASE_TIME + 11),
  codexUserTurn(FORK, "now try the kestrel ledger instead", BASE_TIME + 11, "f1"),
  codexAgentTurn(FORK, "the kestrel ledger needs no split", BASE_TIME + 12, "f2"),
  codexThreadName(FORK, "Kestrel ledger study", BASE_TIME + 13),
]
  .join("")
  .split(/(?<=\n)/);

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

async function setup(): Promise<{ h: Harness; forkFile: string }> {
  const harness = await createHarness();
  const dir = path.join(codexSessions(harness.home), "2026", "06", "01");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `rollout-2026-06-01T10-00-00-${PARENT}.jsonl`), parentLines);
  return { h: harness, forkFile: path.join(dir, `rollout-2026-06-01T10-05-00-${FORK}.jsonl`) };
}

function expectForkIndexedOnce(harness: Harness, forkFile: string): void {
  const heron = harness.search("heron ledger");
  expect(heron.map((x) => x.session)).toEqual([PARENT, PARENT]);
  expect(heron.every((x) => x.conversation === `codex:${PARENT}`)).toBe(true);
  const kestrel = harness.search("kestrel ledger");
  expect(kestrel).toHaveLength(2);
  expect(kestrel.every((x) => x.session === FORK && x.conversation === `codex:${FORK}`)).toBe(true);
  const forkDocs = documentRows<{ role: string }>(
    harness.store.db,
    "d.role",
    "WHERE d.conversation = ? ORDER BY d.at",
    `codex:${FORK}`,
  );
  expect(forkDocs.map((d) => d.role)).toEqual(["user", "assistant"]);
  const row = harness.store.db
    .prepare("SELECT parent, title FROM recall_conversations WHERE id = ?")
    .get(`codex:${FORK}`);
  expect(row).toEqual({ parent: `codex:${PARENT}`, title: "Kestrel ledger study" });
  expect(sessionsForAlias(harness.store.db, "Kestrel variant")).toEqual(["Kestrel variant", FORK]);
  expect(sessionsForAlias(harness.store.db, "Heron migration")).toEqual(["Heron migration", PARENT]);
  const parentRow = harness.store.db
    .prepare("SELECT parent, title FROM recall_conversations WHERE id = ?")
    .get(`codex:${PARENT}`);
  expect(parentRow).toEqual({ parent: null, title: "Heron migration" });
  // Only the projection changes: every byte of the fork is still retained.
  expect(
    harness.count(
      "SELECT coalesce(sum(length), 0) FROM recall_raw_chunks WHERE conversation = ?",
      `codex:${FORK}`,
    ),
  ).toBe(statSync(forkFile).size);
}

describe("Codex fork rollouts", () => {
  it("indexes the parent's replay once, links the fork to its parent and keeps the fork's own title", async () => {
    const s = await setup();
    h = s.h;
    writeFileSync(s.forkFile, forkLines.join(""));
    h.index();
    expectForkIndexedOnce(h, s.forkFile);
  });

  // Every split point: inside the replay (also between a response_item and its event twin),
  // at its end, and inside the fork's own turn; a new process resumes from the checkpoint.
  it.each(forkLines.slice(1).map((_, i) => [i + 1]))(
    "behaves the same when the fork is read in two polls split after line %i, with a restart between",
    async (split) => {
      const s = await setup();
      h = s.h;
      writeFileSync(s.forkFile, forkLines.slice(0, split).join(""));
      h.index();
      h.restart();
      appendFileSync(s.forkFile, forkLines.slice(split).join(""));
      h.clock.advance(60_000);
      h.index();
      expectForkIndexedOnce(h, s.forkFile);
    },
  );

  it("holds at most MAX_HELD_RECORDS of a replay that names no thread, and loses none of the fork's turns", async () => {
    const s = await setup();
    h = s.h;
    // Replayed turns as response_items alone: nothing names a thread until the fork's own turn.
    const bare = (i: number) =>
      `${JSON.stringify({
        timestamp: new Date(BASE_TIME + 20 + i).toISOString(),
        type: "response_item",
        payload: {
          type: "message",
          role: "user",
          id: `r${i}`,
          content: [{ type: "input_text", text: `osprey note ${i}` }],
        },
      })}\n`;
    const replay = Array.from({ length: MAX_HELD_RECORDS + 8 }, (_, i) => bare(i)).join("");
    writeFileSync(s.forkFile, codexForkMeta(FORK, PARENT, BASE_TIME + 10) + codexMeta(PARENT) + replay);
    h.index();
    const cp = h.store.db
      .prepare("SELECT state FROM recall_checkpoints WHERE source = 'codex' AND key = ?")
      .get(`thread:${FORK}`) as { state: string };
    const held = (JSON.parse(cp.state) as { parser: { held?: unknown[] } }).parser.held ?? [];
    expect(held.length).toBeLessThanOrEqual(MAX_HELD_RECORDS);
    appendFileSync(
      s.forkFile,
      codexUserTurn(FORK, "now try the kestrel ledger instead", BASE_TIME + 90, "f1"),
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("kestrel ledger").map((x) => x.session)).toEqual([FORK]);
    // Without a thread id to tell them apart, the replayed turns are kept, not lost.
    expect(h.search("osprey note")).toHaveLength(MAX_HELD_RECORDS + 8);
  });
});
