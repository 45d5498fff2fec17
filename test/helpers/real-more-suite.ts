/**
 * What every agent's real sessions must give through search_history (recall issue #34): the
 * decision phrase in the decision session, `0042_enable_rls.sql` in the resumed session, the ADR
 * session, the quokka marker where the CLI kept it; a resumed session appended to its file read
 * again without a duplicate or a lost record; the CLI's files unchanged; and `npm start` on a HOME
 * holding only this agent indexing it instead of the demo.
 */
import { readFileSync, writeFileSync, appendFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conversationRecords, realMoreHome, search } from "./real-more-cli.js";
import {
  fingerprint,
  readManifest,
  sessionsOf,
  type ManifestSession,
  type RealMoreManifest,
} from "./real-more.js";
import { sharedAvailable } from "./shared.js";

export interface RealAgent {
  /** The CLI's folder in real-more and its `cli` in MANIFEST.json. */
  cli: string;
  /** The agent filter's value. */
  agent: string;
  /** How `recall status` names its source. */
  label: string;
}

export function realAgentSuite({ cli, agent, label }: RealAgent): void {
  const available = sharedAvailable("fixtures/real-more/MANIFEST.json");
  describe.skipIf(!available)(`${agent}: the real sessions of ../shared/fixtures/real-more/${cli}`, () => {
    const manifest: RealMoreManifest = available
      ? readManifest()
      : { decision_phrase: "", big_output_marker: "", big_output_first_line: "", sessions: [] };
    const { decision: resumed, adr, build } = sessionsOf(manifest, cli);
    const conversation = (s: { session_id: string }) => `${agent}:${s.session_id}`;
    const inHome = (file: string) => file.slice(`${cli}/home/`.length);
    const transcript = (s: ManifestSession) => inHome(s.files.find((f) => f.endsWith(".jsonl"))!);

    it("finds each scenario in its own session, through the agent filter and other", () => {
      const home = realMoreHome(cli);
      try {
        const before = fingerprint(home.home);
        const indexed = home.run("index");
        expect(indexed.status, indexed.stderr).toBe(0);
        expect(fingerprint(home.home)).toEqual(before);
        const status = home.run("status");
        expect(status.stdout).toMatch(
          new RegExp(`^  ${label.replace(/[()]/g, "\\$&")} +ready .* docs 16 `, "m"),
        );

        const decision = search(home, manifest.decision_phrase, "--agent", agent);
        expect(decision.length).toBeGreaterThan(0);
        expect(decision.every((h) => h.agent === agent)).toBe(true);
        const inResumed = decision.filter((h) => h.conversation === conversation(resumed));
        expect(inResumed.map((h) => h.role)).toContain("assistant");
        expect(inResumed[0]!.project).toBe(resumed.cwd);
        // Neither CLI records a title but the first prompt, which stays its own record only.
        expect(inResumed[0]!.title).toBeNull();
        // The phrase is said in the decision session and the ADR session only (OR-relaxed hits follow).
        expect([conversation(resumed), conversation(adr)]).toContain(decision[0]!.conversation);

        const migration = search(home, "0042_enable_rls.sql", "--agent", agent);
        expect(migration[0]?.conversation).toBe(conversation(resumed));
        expect(migration[0]?.snippet).toContain("0042_enable_rls.sql");

        const written = search(home, "ADR 0001 auth store database", "--agent", agent);
        expect(written[0]?.conversation).toBe(conversation(adr));

        const marker = search(home, manifest.big_output_marker, "--agent", agent);
        expect(marker.length).toBeGreaterThan(0);
        expect(marker.every((h) => h.conversation === conversation(build))).toBe(true);
        // Where the CLI kept the output's first line, its tool result is found by the marker.
        const firstLine = "quokka_retry_budget exhausted on shard 7";
        const toolHit = marker.some((h) => h.role === "tool" && h.snippet.includes(firstLine));
        expect(toolHit).toBe(build.big_output_first_line_in_tool_result === true);

        // `other` keeps finding every agent outside the spec's three; claude finds none of these.
        expect(search(home, "0042_enable_rls.sql", "--agent", "other")[0]?.conversation).toBe(
          conversation(resumed),
        );
        expect(search(home, "0042_enable_rls.sql", "--agent", "claude")).toEqual([]);
      } finally {
        home.cleanup();
      }
    });

    it("reads the resumed half appended to the session's file without a duplicate or a lost record", () => {
      const full = realMoreHome(cli);
      const split = realMoreHome(cli);
      try {
        expect(full.run("index").status).toBe(0);
        const all = conversationRecords(full, conversation(resumed));

        const file = path.join(split.home, transcript(resumed));
        const text = readFileSync(file, "utf8");
        const at = text.lastIndexOf("\n", text.indexOf(resumed.user_prompts[1]!)) + 1;
        expect(at).toBeGreaterThan(0);
        writeFileSync(file, text.slice(0, at));
        expect(split.run("index").status).toBe(0);
        const first = conversationRecords(split, conversation(resumed));
        expect(first.length).toBeGreaterThan(0);
        expect(first.length).toBeLessThan(all.length);
        expect(search(split, "0042_enable_rls.sql", "--agent", agent)).toEqual([]);

        appendFileSync(file, text.slice(at));
        expect(split.run("index").status).toBe(0);
        expect(conversationRecords(split, conversation(resumed))).toEqual(all);
        expect(search(split, "0042_enable_rls.sql", "--agent", agent)).toHaveLength(1);
        // Indexing again reads nothing new.
        expect(split.run("index").status).toBe(0);
        expect(conversationRecords(split, conversation(resumed))).toEqual(all);
      } finally {
        full.cleanup();
        split.cleanup();
      }
    });

    it("npm start on a HOME holding only this agent indexes it, not the demo", () => {
      const home = realMoreHome(cli);
      try {
        const r = home.run("start", "--no-serve");
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout).not.toMatch(/No agent history found|demo/);
        const records = /Indexed (\d+) records/.exec(r.stdout);
        expect(Number(records?.[1])).toBeGreaterThan(0);
        expect(r.stdout).toMatch(new RegExp(`transcript:${agent}:`));
      } finally {
        home.cleanup();
      }
    });
  });
}
