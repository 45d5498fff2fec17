/**
 * Retention wins over a transcript that shrinks or is rewritten (issue #30, item 2): what was
 * committed stays retained, searchable and exportable as the earlier version; the new content
 * is indexed as what it is; `recall status` counts such files per source.
 */
import { appendFileSync, mkdirSync, readFileSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sourceCoverage } from "../src/indexer/coverage.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { claudeProjects, codexSessions, createHarness, type Harness } from "./sources-harness.js";
import {
  BASE_TIME,
  claudeLine,
  codexAgentTurn,
  codexMeta,
  codexTurnContext,
  codexUserTurn,
} from "./sources-lines.js";

const SESSION = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
const THREAD = "019a0000-5555-7666-8777-888899990000";

describe("a transcript that shrinks or is rewritten", () => {
  let h: Harness | null = null;
  let cli: TranscriptHome | null = null;
  afterEach(() => {
    h?.close();
    h = null;
    cli?.cleanup();
    cli = null;
  });

  const documents = (harness: Harness) => harness.count("SELECT count(*) FROM recall_documents");
  const records = (harness: Harness) => harness.count("SELECT count(*) FROM recall_records");

  it("keeps one record of a response a rewritten file streams again, its half-written state dropped", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${SESSION}.jsonl`);
    const part = (i: number) =>
      claudeLine({
        uuid: `r${i}`,
        session: SESSION,
        role: "assistant",
        text: `otter part ${i}`,
        messageId: "msg_x",
        requestId: "req_x",
        at: BASE_TIME + 1 + i,
      });
    const question = claudeLine({
      uuid: "q",
      session: SESSION,
      text: "question about otters",
      at: BASE_TIME,
    });
    const otterRecords = () =>
      h!.count("SELECT count(*) FROM recall_records WHERE text LIKE '%otter part 0%'");
    const touch = () => utimesSync(file, new Date(h!.clock.now()), new Date(h!.clock.now()));
    writeFileSync(file, question + part(0) + part(1));
    h.index();
    h.clock.advance(120_000);
    h.index();
    expect(otterRecords()).toBe(1);
    // The file is written again from the start; the response is read while half-written...
    writeFileSync(file, question + part(0));
    touch();
    h.clock.advance(1_000);
    h.index();
    // ...then it ends as the earlier version's record did: one record again.
    appendFileSync(file, part(1));
    touch();
    h.clock.advance(120_000);
    h.index();
    h.clock.advance(120_000);
    h.index();
    expect(otterRecords()).toBe(1);
    expect(h.search("otter part")).toHaveLength(1);
  });

  it("keeps a 20,000-message session's records when the file is cut short, then emptied", async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), "-p");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${SESSION}.jsonl`);
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++)
      lines.push(
        claudeLine({
          uuid: `m-${i}`,
          session: SESSION,
          role: i % 2 ? "assistant" : "user",
          text: `message ${i} about the quokka ledger`,
          at: BASE_TIME + i,
        }),
      );
    writeFileSync(file, lines.join(""));
    h.index();
    expect(documents(h)).toBe(20_000);

    // Cut to a fifth of its size (a half line at the end), then emptied, as `: > file` does.
    truncateSync(file, Math.floor(readFileSync(file).length / 5));
    h.clock.advance(60_000);
    h.index();
    expect(documents(h)).toBe(20_000);
    truncateSync(file, 0);
    h.clock.advance(60_000);
    h.index();
    expect(documents(h)).toBe(20_000);
    expect(records(h)).toBe(20_000);
    expect(h.search("quokka ledger 19999")).toHaveLength(1);
    expect(sourceCoverage(h.store.db, ["claude-code"])[0]!.rewritten).toBe(2);

    // New lines in the emptied file are indexed as what they are, beside the earlier version.
    appendFileSync(
      file,
      claudeLine({ uuid: "n-0", session: SESSION, text: "fresh wombat entry", at: BASE_TIME + 30_000 }),
    );
    h.clock.advance(60_000);
    h.index();
    expect(h.search("wombat")).toHaveLength(1);
    expect(documents(h)).toBe(20_001);
  });

  it("keeps a Codex rollout's earlier turns when it is rewritten with other turns at the same offsets", async () => {
    h = await createHarness();
    const dir = path.join(codexSessions(h.home), "2026", "06", "01");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `rollout-2026-06-01T10-00-00-${THREAD}.jsonl`);
    const rollout = (word: string) =>
      codexMeta(THREAD) +
      codexTurnContext() +
      codexUserTurn(THREAD, `question about the ${word}`, BASE_TIME + 100, "u1") +
      codexAgentTurn(THREAD, `answer about the ${word}`, BASE_TIME + 101, "a1");
    writeFileSync(file, rollout("heron"));
    h.index();
    expect(h.search("heron")).toHaveLength(2);
    // Same length, same head (the metadata lines), other text where the turns were.
    writeFileSync(file, rollout("egret"));
    h.clock.advance(60_000);
    h.index();
    expect(h.search("egret")).toHaveLength(2);
    expect(h.search("heron")).toHaveLength(2);
    expect(records(h)).toBe(4);
    // A new process (sources recreated from the committed checkpoints) doubles nothing.
    h.restart();
    h.clock.advance(60_000);
    h.index();
    expect(records(h)).toBe(4);
  });

  it("says so in `recall status` and exports the earlier version with --epoch", () => {
    cli = createTranscriptHome();
    const file = path.join(cli.claudeDir, `${SESSION}.jsonl`);
    const before = claudeLine({
      uuid: "a",
      session: SESSION,
      text: "the first draft of the plan",
      at: BASE_TIME,
    });
    writeFileSync(file, before);
    expect(cli.run("index").status).toBe(0);
    writeFileSync(file, "");
    expect(cli.run("index").status).toBe(0);
    const after = claudeLine({
      uuid: "b",
      session: SESSION,
      text: "a second take on the plan",
      at: BASE_TIME + 1,
    });
    writeFileSync(file, after);
    expect(cli.run("index").status).toBe(0);

    const status = cli.run("status", "--json");
    expect(status.status).toBe(0);
    const claude = (
      JSON.parse(status.stdout) as { sources: { source: string; rewritten: number }[] }
    ).sources.find((s) => s.source === "claude-code")!;
    expect(claude.rewritten).toBe(1);
    expect(cli.run("status").stdout).toMatch(/rewritten 1 \(earlier versions kept\)/);

    const found = JSON.parse(cli.run("search", "plan", "--json").stdout) as { hits: unknown[] };
    expect(found.hits).toHaveLength(2);
    const listed = cli.run("export", `claude:${SESSION}`, "--list");
    expect(listed.stdout).toBe(`${file}\t${after.length}\n${file}\t${before.length}\tepoch 0\n`);
    expect(cli.run("export", `claude:${SESSION}`).stdout).toBe(after);
    expect(cli.run("export", `claude:${SESSION}`, "--file", file, "--epoch", "0").stdout).toBe(before);
    expect(cli.run("export", `claude:${SESSION}`, "--epoch", "0").status).toBe(2);
  });
});
