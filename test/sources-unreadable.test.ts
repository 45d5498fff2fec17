/**
 * Files and folders that cannot be read are counted as unreadable (not malformed), named, and
 * make coverage say `incomplete` (issue #30, item 6). Tests run as root, which ignores file
 * modes: unreadability is injected (failing-reads.ts: EACCES on open/opendir), or made with a
 * file where a folder is expected (ENOTDIR), which root cannot read through either.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sourceCoverage } from "../src/indexer/coverage.js";
import { failDirs, failOpens } from "./helpers/failing-reads.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { claudeProjects, createHarness, type Harness } from "./sources-harness.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const READABLE = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a";
const LOCKED = "3e4f5a6b-7c8d-4e9f-8a0b-2c3d4e5f6a7b";

describe("unreadable transcripts", () => {
  let h: Harness | null = null;
  let cli: TranscriptHome | null = null;
  const restores: (() => void)[] = [];
  afterEach(() => {
    for (const restore of restores.splice(0).reverse()) restore();
    h?.close();
    h = null;
    cli?.cleanup();
    cli = null;
  });

  it("counts a file that cannot be opened and a folder that cannot be listed as unreadable, by name", async () => {
    h = await createHarness();
    const root = claudeProjects(h.home);
    const open = path.join(root, "-open");
    const locked = path.join(root, "-locked");
    mkdirSync(open, { recursive: true });
    mkdirSync(locked, { recursive: true });
    const readable = path.join(open, `${READABLE}.jsonl`);
    const lockedFile = path.join(open, `${LOCKED}.jsonl`);
    writeFileSync(
      readable,
      claudeLine({ uuid: "r1", session: READABLE, text: "readable ibis", at: BASE_TIME }),
    );
    writeFileSync(
      lockedFile,
      claudeLine({ uuid: "l1", session: LOCKED, text: "locked ibis", at: BASE_TIME }),
    );
    writeFileSync(
      path.join(locked, `${READABLE}.jsonl`),
      claudeLine({ uuid: "h1", session: READABLE, text: "hidden ibis", at: BASE_TIME }),
    );
    const file = failOpens(lockedFile);
    const dir = failDirs(locked);
    restores.push(file.restore, dir.restore);

    h.index();
    expect(h.search("ibis").map((x) => x.id)).toHaveLength(1);
    const coverage = sourceCoverage(h.store.db, ["claude-code"])[0]!;
    expect(coverage.unreadable).toBe(2);
    expect(coverage.malformed).toBe(0);
    const progress = h.tick().find((t) => t.source === "claude-code")!.progress!;
    expect(progress.unreadable).toEqual({ count: 2, paths: [locked, lockedFile] });

    // Readable again: read, and no longer named (patches undone in the reverse order).
    dir.restore();
    file.restore();
    h.clock.advance(120_000);
    h.index();
    expect(h.search("ibis")).toHaveLength(3);
    h.clock.advance(60_000);
    expect(h.tick().find((t) => t.source === "claude-code")!.progress!.unreadable).toBeUndefined();
  });

  it("names an unreadable folder in recall status and says `incomplete` in every search's coverage", () => {
    cli = createTranscriptHome();
    writeFileSync(
      path.join(cli.claudeDir, `${READABLE}.jsonl`),
      claudeLine({ uuid: "r1", session: READABLE, text: "the visible heron", at: BASE_TIME }),
    );
    // Codex's folder is a file: nothing in it can be read (ENOTDIR), root or not.
    writeFileSync(path.join(cli.home, ".codex"), "not a folder");
    expect(cli.run("index").status).toBe(0);

    const search = JSON.parse(cli.run("search", "heron", "--json").stdout) as {
      hits: unknown[];
      coverage: { source: string; state: string; unreadable?: number }[];
    };
    expect(search.hits).toHaveLength(1);
    expect(search.coverage.find((c) => c.source === "codex")).toMatchObject({
      state: "incomplete",
      unreadable: 2,
    });
    expect(search.coverage.find((c) => c.source === "claude-code")!.state).toBe("ready");
    const status = cli.run("status");
    expect(status.status).toBe(0);
    expect(status.stdout).toContain("cannot read 2 files or folders (their history is missing):");
    expect(status.stdout).toContain(path.join(cli.home, ".codex", "sessions"));
    expect(cli.run("search", "heron").stdout).toMatch(/codex cannot read 2 files or folders/);
  });
});
