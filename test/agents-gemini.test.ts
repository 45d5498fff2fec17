/**
 * Gemini CLI 0.61.0, real files (../shared/fixtures/real-more/gemini-cli) copied into a
 * temporary HOME, indexed and found through search_history; and its `$set` patches and
 * rewritten messages read again without a duplicate or a lost record.
 */
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sharedAvailable } from "./helpers/shared.js";
import {
  expectAnswerAndPreview,
  expectManifestFound,
  indexRealHome,
  readManifest,
  sessionsOf,
  strictHits,
} from "./helpers/real-more.js";
import type { Harness } from "./sources-harness.js";

const available = sharedAvailable("fixtures/real-more/gemini-cli");

describe.skipIf(!available)("Gemini CLI sessions written by the real binary", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("finds the decision, the resumed follow-up, the ADR and the big output's marker", async () => {
    h = await indexRealHome("gemini-cli");
    await expectManifestFound(h, "gemini-cli", "gemini");
    await expectAnswerAndPreview(h, "gemini-cli", "gemini");
  });

  it("reads each message once, though logged twice and replayed by $set on the resume", async () => {
    const manifest = readManifest();
    const { decision } = sessionsOf(manifest, "gemini-cli");
    h = await indexRealHome("gemini-cli");
    const conversation = `gemini:${decision.session_id}`;
    const records = () =>
      h!.count("SELECT count(*) FROM recall_records WHERE conversation = ?", conversation);
    // 2 prompts, 2 tool results, 4 replies (two of them logged twice); the $set replays are no records.
    expect(records()).toBe(8);
    const file = path.join(h.home, decision.files[0]!.replace(/^gemini-cli\/home\//, ""));
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    // The CLI appends a $set patch replaying the whole history, then logs a reply again under its id.
    const replay = lines.find((l) => l.startsWith('{"$set":{"messages"') && l.includes("0042") === false)!;
    const reply = lines.find((l) => l.includes("0042_enable_rls.sql") && l.startsWith('{"id"'))!;
    const rewritten = JSON.parse(reply) as { content: string };
    rewritten.content = rewritten.content.replace("0042_enable_rls.sql", "0043_tighten_rls.sql");
    appendFileSync(file, `${replay}\n{"$set":{"lastUpdated":"2026-12-04T17:30:00.000Z"}}\n`);
    appendFileSync(file, `${JSON.stringify(rewritten)}\n`);
    h.index();
    expect(records()).toBe(8);
    expect((await strictHits(h, "0043_tighten_rls.sql")).map((x) => x.conversation)).toEqual([conversation]);
    expect((await strictHits(h, manifest.decision_phrase)).length).toBeGreaterThan(0);
  });
});
