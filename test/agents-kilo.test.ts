/**
 * Kilo Code CLI 7.7.7's real sessions (../shared/fixtures/real-more/kilocode: kilo.db with most
 * rows in its WAL) in a temporary HOME, found through search_history.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expectManifestFound, indexRealHome, searchTool } from "./helpers/real-more.js";
import { sharedAvailable } from "./helpers/shared.js";
import type { Harness } from "./sources-harness.js";

const available = sharedAvailable("fixtures/real-more/kilocode");
const SESSION = "ses_dbdea86e7ffe2WtcoD4K4h0fZJ";

describe.skipIf(!available)("Kilo Code CLI sessions", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("are found by search_history with the agent filter, read through the live WAL", async () => {
    h = await indexRealHome("kilocode");
    await expectManifestFound(h, "kilocode", "kilo");
    const hit = (await searchTool(h, "0042_enable_rls.sql", { agent: "kilo" })).hits[0]!;
    // Kilo's placeholder "New session - <time>" is no title: the conversation has none.
    expect(hit).toMatchObject({ conversation: `kilo:${SESSION}`, title: null });
    const conv = h.store.db
      .prepare("SELECT model, project FROM recall_conversations WHERE id = ?")
      .get(`kilo:${SESSION}`);
    expect(conv).toEqual({ model: "mock-model", project: "/tmp/clis2/gen-run/kilo/home/code/acme-auth" });
  });

  it("a resumed session's new message, written while recall reads, is added once", async () => {
    h = await indexRealHome("kilocode");
    const count = () =>
      h!.count("SELECT count(*) AS n FROM recall_records WHERE conversation = ?", `kilo:${SESSION}`);
    const before = count();
    expect(before).toBeGreaterThan(0);
    const db = new Database(path.join(h.home, ".local/share/kilo/kilo.db"));
    const t = 1796405099000;
    db.prepare(
      "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
    ).run("msg_zzresume1", SESSION, t, t, JSON.stringify({ role: "user", time: { created: t } }));
    db.prepare(
      "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(
      "prt_zzresume1",
      "msg_zzresume1",
      SESSION,
      t,
      t,
      JSON.stringify({ type: "text", text: "and the wombatword?" }),
    );
    db.close();
    h.clock.advance(60_000);
    h.index();
    expect(count()).toBe(before + 1);
    expect((await searchTool(h, "wombatword", { agent: "kilo" })).hits).toHaveLength(1);
    expect((await searchTool(h, "0042_enable_rls.sql", { agent: "kilo" })).hits.length).toBeGreaterThan(0);
  });
});
