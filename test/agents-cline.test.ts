/**
 * Cline CLI 3.0.65's real sessions (../shared/fixtures/real-more/cline) in a temporary HOME:
 * found through search_history, and a session rewritten whole (a resume) read again without a
 * duplicate or a lost record.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expectManifestFound, indexRealHome, searchTool } from "./helpers/real-more.js";
import { sharedAvailable } from "./helpers/shared.js";
import type { Harness } from "./sources-harness.js";

const available = sharedAvailable("fixtures/real-more/cline");
const SESSION = "1796405002343_mz607";

describe.skipIf(!available)("Cline CLI sessions", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("are found by search_history with the agent filter, and leave Cline's files unchanged", async () => {
    h = await indexRealHome("cline");
    await expectManifestFound(h, "cline", "cline");
    const hit = (await searchTool(h, "0042_enable_rls.sql", { agent: "cline" })).hits[0]!;
    expect(hit).toMatchObject({
      conversation: `cline:${SESSION}`,
      project: "/tmp/clis2/gen-run/cline/home/code/acme-auth",
      title: expect.stringMatching(/^We need to pick a database for the auth store/),
    });
    // The typed prompt is the user's, without Cline's <user_input> wrapper.
    const prompt = await searchTool(h, "remind me what we decided", { agent: "cline" });
    const typed = prompt.hits.find((x) => x.role === "user")!;
    expect(typed.snippet).not.toContain("user_input");
    const conv = h.store.db
      .prepare("SELECT branch, model FROM recall_conversations WHERE id = ?")
      .get(`cline:${SESSION}`) as { branch: string; model: string };
    expect(conv).toEqual({ branch: "main", model: "mock-model" });
  });

  it("a messages file rewritten whole with a new turn adds it once and keeps every earlier record", async () => {
    h = await indexRealHome("cline");
    const count = () =>
      h!.count("SELECT count(*) AS n FROM recall_records WHERE conversation = ?", `cline:${SESSION}`);
    const before = count();
    expect(before).toBe(8);
    const file = path.join(h.home, ".cline/data/sessions", SESSION, `${SESSION}.messages.json`);
    const doc = JSON.parse(readFileSync(file, "utf8")) as { messages: unknown[] };
    doc.messages.push(
      {
        id: "c-new-user",
        role: "user",
        content: [{ type: "text", text: '<user_input mode="act">and the wombatword?</user_input>' }],
        ts: 1796405099000,
      },
      {
        id: "msg_newreply",
        role: "assistant",
        content: [{ type: "text", text: "wombatword answered" }],
        ts: 1796405099100,
      },
    );
    // As Cline does: the whole document written again, pretty-printed differently.
    writeFileSync(file, JSON.stringify(doc));
    h.clock.advance(60_000);
    h.index();
    expect(count()).toBe(before + 2);
    expect((await searchTool(h, "wombatword", { agent: "cline" })).hits).toHaveLength(2);
    expect((await searchTool(h, "0042_enable_rls.sql", { agent: "cline" })).hits).toHaveLength(1);
    // Read once more unchanged: nothing moves.
    h.clock.advance(60_000);
    h.index();
    expect(count()).toBe(before + 2);
  });
});
