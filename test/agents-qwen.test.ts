/**
 * Qwen Code 0.24.4, real files (../shared/fixtures/real-more/qwen-code) copied into a temporary
 * HOME, indexed and found through search_history; a resume appended to the session and a
 * re-read add nothing twice.
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

const available = sharedAvailable("fixtures/real-more/qwen-code");

describe.skipIf(!available)("Qwen Code sessions written by the real binary", () => {
  let h: Harness | null = null;
  afterEach(() => {
    h?.close();
    h = null;
  });

  it("finds the decision, the resumed follow-up, the ADR and the big output's marker", async () => {
    h = await indexRealHome("qwen-code");
    await expectManifestFound(h, "qwen-code", "qwen");
    await expectAnswerAndPreview(h, "qwen-code", "qwen");
    expect(await strictHits(h, "0042_enable_rls.sql", { agent: "gemini" })).toEqual([]);
  });

  it("records model and branch, and reads an appended resume without a duplicate", async () => {
    const manifest = readManifest();
    const { decision } = sessionsOf(manifest, "qwen-code");
    h = await indexRealHome("qwen-code");
    const conversation = `qwen:${decision.session_id}`;
    const records = () =>
      h!.count("SELECT count(*) FROM recall_records WHERE conversation = ?", conversation);
    // 2 prompts, 4 replies, 2 tool results; the 17 system lines are no records.
    expect(records()).toBe(8);
    expect(
      h.count(
        "SELECT count(*) FROM recall_conversations WHERE id = ? AND model = 'mock-model' AND branch = 'main'",
        conversation,
      ),
    ).toBe(1);
    const file = path.join(h.home, decision.files[0]!.replace(/^qwen-code\/home\//, ""));
    const last = readFileSync(file, "utf8").split("\n").filter(Boolean).at(-1)!;
    const next = JSON.parse(last) as Record<string, unknown>;
    appendFileSync(
      file,
      `${JSON.stringify({
        ...next,
        uuid: "11111111-2222-4333-8444-555555555555",
        parentUuid: next["uuid"],
        timestamp: "2026-12-04T17:40:00.000Z",
        type: "user",
        provenance: "real_user",
        message: { role: "user", parts: [{ text: "and rotate the pangolin signing key" }] },
      })}\n`,
    );
    h.index();
    h.index();
    expect(records()).toBe(9);
    expect((await strictHits(h, "pangolin signing key")).map((x) => x.conversation)).toEqual([conversation]);
  });
});
