/**
 * Continue CLI 1.5.47's real sessions (../shared/fixtures/real-more/continue) in a temporary
 * HOME: found through search_history, dated by the stated rule (Continue records no times), and
 * a session rewritten whole by `--resume` read again without a duplicate or a lost record.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expectManifestFound, indexRealHome, searchTool } from "./helpers/real-more.js";
import { sharedAvailable } from "./helpers/shared.js";
import type { Harness } from "./sources-harness.js";

const available = sharedAvailable("fixtures/real-more/continue");
const SESSION = "f0ae0ac5-bfd6-48f4-bd05-884a6c9c1580";
/** sessions.json's dateCreated for SESSION. */
const CREATED = 1796405071200;

describe.skipIf(!available)("Continue CLI sessions", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("are found by search_history with the agent filter", async () => {
    h = await indexRealHome("continue");
    await expectManifestFound(h, "continue", "continue");
    const hit = (await searchTool(h, "0042_enable_rls.sql", { agent: "continue" })).hits[0]!;
    // "Untitled Session" is Continue's placeholder: no title.
    expect(hit).toMatchObject({ conversation: `continue:${SESSION}`, title: null });
  });

  it("dates item i at the session's dateCreated plus i ms, the same after a rewrite", async () => {
    h = await indexRealHome("continue");
    const times = () =>
      (
        h!.store.db
          .prepare("SELECT at FROM recall_records WHERE conversation = ? ORDER BY ordinal")
          .all(`continue:${SESSION}`) as { at: number }[]
      ).map((r) => r.at);
    const before = times();
    expect(before).toEqual(before.map((_, i) => CREATED + i));
    const file = path.join(h.home, ".continue/sessions", `${SESSION}.json`);
    const doc = JSON.parse(readFileSync(file, "utf8")) as { history: unknown[] };
    const n = doc.history.length;
    doc.history.push(
      { message: { role: "user", content: "and the wombatword?" }, contextItems: [] },
      { message: { role: "assistant", content: "wombatword answered" }, contextItems: [] },
    );
    // As `cn --resume` does: the same file written again whole.
    writeFileSync(file, JSON.stringify(doc, null, 2));
    h.clock.advance(60_000);
    h.index();
    const after = times();
    expect(after).toHaveLength(before.length + 2);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual([CREATED + n, CREATED + n + 1]);
    expect((await searchTool(h, "wombatword", { agent: "continue" })).hits).toHaveLength(2);
    expect((await searchTool(h, "0042_enable_rls.sql", { agent: "continue" })).hits).toHaveLength(1);
  });
});
