/** `recall index`, `recall forget` and `recall export` end to end, through the compiled binary. */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";
import {
  BASE_TIME,
  claudeLine,
  codexAgentTurn,
  codexMeta,
  codexTurnContext,
  codexUserTurn,
} from "./sources-lines.js";

const SESSION = "8c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
const THREAD = "019a0000-3333-7444-8555-666677778888";

describe("recall index / forget / export", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  const setup = () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const home = path.join(t.dir, "home");
    const claude = path.join(home, ".claude", "projects", "-p");
    mkdirSync(claude, { recursive: true });
    writeFileSync(
      path.join(claude, `${SESSION}.jsonl`),
      claudeLine({ uuid: "c1", session: SESSION, text: "the flamingo migration plan", at: BASE_TIME }) +
        claudeLine({
          uuid: "c2",
          session: SESSION,
          role: "assistant",
          text: "flamingo plan accepted",
          at: BASE_TIME + 1,
        }),
    );
    const codex = path.join(home, ".codex", "sessions", "2026", "06", "01");
    mkdirSync(codex, { recursive: true });
    writeFileSync(
      path.join(codex, `rollout-2026-06-01T10-00-00-${THREAD}.jsonl`),
      codexMeta(THREAD) +
        codexTurnContext() +
        codexUserTurn(THREAD, "flamingo question for codex", BASE_TIME + 100, "u1") +
        codexAgentTurn(THREAD, "codex flamingo answer", BASE_TIME + 101, "a1"),
    );
    const env = {
      HOME: home,
      RECALL_HOME: path.join(t.dir, "recall"),
      CLAUDE_CONFIG_DIR: "",
      CODEX_HOME: "",
      XDG_DATA_HOME: "",
      XDG_CONFIG_HOME: "",
      OPENCODE_DB: "",
    };
    // Unset the CLIs' variables (an empty CLAUDE_CONFIG_DIR would name the current folder).
    delete (env as Record<string, string | undefined>).CLAUDE_CONFIG_DIR;
    delete (env as Record<string, string | undefined>).CODEX_HOME;
    delete (env as Record<string, string | undefined>).XDG_DATA_HOME;
    delete (env as Record<string, string | undefined>).OPENCODE_DB;
    return { home, env };
  };

  it("indexes, reports per source, forgets with a tombstone, and exports", () => {
    const { env } = setup();
    const run = (...args: string[]) => runCli(args, env);

    const indexed = run("index", "--json");
    expect(indexed.stderr).toBe("");
    expect(indexed.status).toBe(0);
    const summary = JSON.parse(indexed.stdout) as {
      records: number;
      sources: {
        source: string;
        records: number;
        files: number;
        documents: number;
        oversized: number;
        raw: { bytes: number };
      }[];
    };
    const claude = summary.sources.find((s) => s.source === "claude-code")!;
    const codex = summary.sources.find((s) => s.source === "codex")!;
    expect(claude).toMatchObject({ records: 2, files: 1, documents: 2, oversized: 0 });
    expect(codex.documents).toBe(2);
    expect(claude.raw.bytes).toBeGreaterThan(0);

    const human = run("index");
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/claude-code/);

    const found = JSON.parse(run("search", "flamingo", "--json").stdout) as { hits: { session: string }[] };
    expect(found.hits.length).toBe(4);

    expect(run("forget").status).toBe(2);
    expect(run("forget", "--session", SESSION, "--project", "/x").status).toBe(2);
    const badTime = run("forget", "--since", "last tuesday", "--until", "2026-01-01T00:00:00Z");
    expect(badTime.status).toBe(2);
    expect(badTime.stderr).toMatch(/^recall: --since: must be epoch milliseconds/);
    // Without a terminal to confirm on, --yes is required.
    const unconfirmed = run("forget", "--session", SESSION);
    expect(unconfirmed.status).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);

    const forgot = run("forget", "--session", SESSION, "--yes", "--json");
    expect(forgot.status).toBe(0);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ documents: 2, records: 2, conversations: 1 });
    expect(run("export", `claude:${SESSION}`).status).toBe(3);

    // A later index does not bring it back.
    expect(run("index").status).toBe(0);
    const after = JSON.parse(run("search", "flamingo", "--json").stdout) as { hits: { session: string }[] };
    expect(after.hits.map((x) => x.session)).toEqual([THREAD, THREAD]);

    const exported = run("export", `codex:${THREAD}`);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toContain("codex flamingo answer");

    const range = run(
      "forget",
      "--since",
      String(BASE_TIME + 100),
      "--until",
      new Date(BASE_TIME + 100).toISOString(),
      "--yes",
    );
    expect(range.status).toBe(0);
    expect(range.stdout).toMatch(/Forgot 1 document, 1 retained record and 1 raw chunk/);
    const left = JSON.parse(run("search", "flamingo", "--json").stdout) as { hits: { id: string }[] };
    expect(left.hits).toHaveLength(1);
    // The raw chunk holding the forgotten record is gone with it (here: the whole small rollout).
    expect(run("export", `codex:${THREAD}`).status).toBe(3);
  });

  it("lists and exports one file of a session kept in two project folders, byte for byte", () => {
    const { home, env } = setup();
    const run = (...args: string[]) => runCli(args, env);
    const first = path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`);
    const second = path.join(home, ".claude", "projects", "-q", `${SESSION}.jsonl`);
    mkdirSync(path.dirname(second), { recursive: true });
    const secondBytes = claudeLine({
      uuid: "d1",
      session: SESSION,
      text: "heron moved here",
      at: BASE_TIME + 5,
    });
    writeFileSync(second, secondBytes);
    expect(run("index").status).toBe(0);

    const listed = run("export", `claude:${SESSION}`, "--list");
    expect(listed.status).toBe(0);
    const files = listed.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(files.map((f) => f[0]).sort()).toEqual([first, second].sort());
    expect(files.find((f) => f[0] === second)![1]).toBe(String(Buffer.byteLength(secondBytes)));
    const listedJson = run("export", `claude:${SESSION}`, "--list", "--json");
    expect(listedJson.status).toBe(0);
    expect(JSON.parse(listedJson.stdout)).toEqual({
      conversation: `claude:${SESSION}`,
      files: files.map(([file, bytes]) => ({ file, bytes: Number(bytes) })),
      earlier: [],
    });

    const one = run("export", `claude:${SESSION}`, "--file", second);
    expect(one.status).toBe(0);
    expect(one.stdout).toBe(secondBytes);
    const both = run("export", `claude:${SESSION}`);
    expect(both.stdout).toContain("heron moved here");
    expect(both.stdout).toContain("flamingo plan accepted");

    const missing = run("export", `claude:${SESSION}`, "--file", path.join(home, "nope.jsonl"));
    expect(missing.status).toBe(3);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toMatch(/--file/);
  });

  it("refuses to forget what matches nothing, without creating an index or a tombstone", () => {
    const { env } = setup();
    const run = (...args: string[]) => runCli(args, env);
    const before = run("forget", "--session", SESSION, "--yes");
    expect(before.status).toBe(3);
    expect(before.stderr).toMatch(/no index/);
    expect(existsSync(path.join(env.RECALL_HOME, "history.db"))).toBe(false);

    expect(run("index").status).toBe(0);
    for (const args of [
      ["--session", "no-such-session"],
      ["--project", "/no/such/project"],
      ["--since", "1000", "--until", "2000"],
    ]) {
      const missed = run("forget", ...args, "--yes");
      expect(missed.status).toBe(3);
      expect(missed.stderr.trim().split("\n")).toHaveLength(1);
      expect(missed.stderr).toMatch(/nothing forgotten/);
    }
    const found = JSON.parse(run("search", "flamingo", "--json").stdout) as { hits: unknown[] };
    expect(found.hits).toHaveLength(4);
    const db = new Database(path.join(env.RECALL_HOME, "history.db"), { readonly: true });
    expect(db.prepare("SELECT count(*) FROM recall_tombstones").pluck().get()).toBe(0);
    db.close();
  });

  it("exits quietly when its reader closes the pipe, and names a bad --out", async () => {
    const { env } = setup();
    expect(runCli(["index"], env).status).toBe(0);
    // The reader is gone before the first write: every write meets a closed pipe.
    const closedPipe = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { ...process.env, NO_COLOR: "1", ...env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        child.stdout.destroy();
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("close", (code) => resolve({ code, stderr }));
      });
    for (const args of [
      ["search", "flamingo"],
      ["conversation", `claude:${SESSION}`],
      ["export", `codex:${THREAD}`],
    ]) {
      const result = await closedPipe(args);
      expect(result).toEqual({ code: 0, stderr: "" });
    }
    const bad = runCli(["export", `codex:${THREAD}`, "--out", "/nonexistent/dir/x"], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("recall: --out: cannot write /nonexistent/dir/x (ENOENT)\n");
  });

  it("exports through a pipe whose reader is slow, byte for byte", async () => {
    const { env } = setup();
    const big = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a";
    const file = path.join(env.HOME, ".claude", "projects", "-p", `${big}.jsonl`);
    writeFileSync(
      file,
      Array.from({ length: 40 }, (_, i) =>
        claudeLine({
          uuid: `b${i}`,
          session: big,
          text: `pelican ${i} ${"x".repeat(50_000)}`,
          at: BASE_TIME + i,
        }),
      ).join(""),
    );
    expect(runCli(["index"], env).status).toBe(0);
    const result = await new Promise<{ code: number | null; stderr: string; out: Buffer }>((resolve) => {
      const child = spawn(process.execPath, [CLI, "export", `claude:${big}`], {
        env: { ...process.env, NO_COLOR: "1", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const chunks: Buffer[] = [];
      let stderr = "";
      // The pipe fills (64 KiB) long before the reader starts.
      child.stdout.pause();
      setTimeout(() => child.stdout.on("data", (d: Buffer) => chunks.push(d)).resume(), 500);
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stderr, out: Buffer.concat(chunks) }));
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(createHash("sha256").update(result.out).digest("hex")).toBe(
      createHash("sha256").update(readFileSync(file)).digest("hex"),
    );
  });

  it("says so when retention pruned part of what it exports, and counts the pruned bytes in status", () => {
    const { home, env } = setup();
    expect(runCli(["index"], env).status).toBe(0);
    writeFileSync(
      path.join(env.RECALL_HOME, "config.json"),
      JSON.stringify({ retention: { rawMaxBytesPerSource: 500 } }),
    );
    // The first chunk holds two lines and the appended one a single line: 500 bytes keep only the latter.
    const file = path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`);
    appendFileSync(
      file,
      claudeLine({ uuid: "c3", session: SESSION, text: "late flamingo", at: BASE_TIME + 2 }),
    );
    expect(runCli(["index"], env).status).toBe(0);
    const exported = runCli(["export", `claude:${SESSION}`], env);
    expect(exported.status).toBe(1);
    expect(exported.stdout).toContain("late flamingo");
    expect(exported.stdout).not.toContain("migration plan");
    expect(exported.stderr).toMatch(
      /^recall: incomplete export: .*pruned by retention\.rawMaxBytesPerSource\n$/,
    );
    expect(runCli(["status"], env).stdout).toMatch(/claude-code .* pruned\)/);
  });

  it("says a rebuild is under way only while its writer still publishes (not after it was killed)", () => {
    const { env } = setup();
    expect(runCli(["index"], env).status).toBe(0);
    const db = new Database(path.join(env.RECALL_HOME, "history.db"));
    const publish = (publishedAt: number) =>
      db
        .prepare(
          "UPDATE recall_meta SET value = json_set(value, '$.rebuilding', json('true'), '$.publishedAt', ?) WHERE key = 'coverage'",
        )
        .run(publishedAt);
    const rebuilding = () =>
      (JSON.parse(runCli(["status", "--json"], env).stdout) as { rebuilding: boolean }).rebuilding;
    try {
      publish(Date.now());
      expect(rebuilding()).toBe(true);
      expect(runCli(["status"], env).stdout).toContain("rebuilding the index");
      // The last row of a rebuild whose process was killed: nobody has published for a minute.
      publish(Date.now() - 60_000);
      expect(rebuilding()).toBe(false);
      expect(runCli(["status"], env).stdout).not.toContain("rebuilding the index");
    } finally {
      db.close();
    }
  });

  it("searches but does not index an index a newer recall built", () => {
    const { env } = setup();
    expect(runCli(["index"], env).status).toBe(0);
    const db = new Database(path.join(env.RECALL_HOME, "history.db"));
    db.prepare("UPDATE recall_meta SET value = value + 1 WHERE key = 'readers_version'").run();
    db.close();
    const index = runCli(["index"], env);
    expect(index.status).toBe(1);
    expect(index.stderr).toMatch(/^recall: history\.db was built by a newer recall .*upgrade this recall\n$/);
    const search = runCli(["search", "flamingo"], env);
    expect(search.status, search.stderr).toBe(0);
    expect(search.stdout).toContain("flamingo");
    const status = runCli(["status"], env).stdout;
    expect(status).toMatch(/built by a newer recall .* does not index into it/);
    expect(status).not.toMatch(/to bring the index up to date/);
    const json = JSON.parse(runCli(["status", "--json"], env).stdout) as { indexRefused: string | null };
    expect(json.indexRefused).toMatch(/^history\.db was built by a newer recall/);
  });

  it("says where it looked when it finds no agent history at all", () => {
    const withHistory = setup().env;
    const t = tempDir();
    const previous = cleanup;
    cleanup = () => {
      previous();
      t.cleanup();
    };
    const home = path.join(t.dir, "empty-home");
    mkdirSync(home);
    const env = {
      HOME: home,
      RECALL_HOME: path.join(t.dir, "recall"),
      XDG_DATA_HOME: "",
      XDG_CONFIG_HOME: "",
    };
    const run = runCli(["index"], env);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      `No agent history found. recall looked in: Claude Code ${path.join(home, ".claude")}, ${path.join(home, ".config", "claude")} (CLAUDE_CONFIG_DIR)`,
    );
    const found = runCli(["index"], withHistory);
    expect(found.stdout).not.toContain("No agent history found");
  });

  it("reads Claude Code's projects under ~/.config/claude as well as ~/.claude", () => {
    const { home, env } = setup();
    const xdg = path.join(home, ".config", "claude", "projects", "-q");
    mkdirSync(xdg, { recursive: true });
    const other = "9d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a";
    writeFileSync(
      path.join(xdg, `${other}.jsonl`),
      claudeLine({ uuid: "x1", session: other, text: "the kingfisher rollout", at: BASE_TIME + 5 }),
    );
    expect(runCli(["index"], env).status).toBe(0);
    const found = JSON.parse(runCli(["search", "kingfisher", "--json"], env).stdout) as {
      hits: { session: string }[];
    };
    expect(found.hits.map((h) => h.session)).toEqual([other]);
    // Still both roots' sessions, each once.
    const flamingo = JSON.parse(
      runCli(["search", "flamingo", "--agent", "claude", "--json"], env).stdout,
    ) as {
      hits: unknown[];
    };
    expect(flamingo.hits).toHaveLength(2);
  });
  it("opens a hit id's conversation at the hit, pages back with --before, and refuses mixed cursors", () => {
    const { home, env } = setup();
    const run = (...args: string[]) => runCli(args, env);
    const session = "9d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a";
    let text = "";
    for (let i = 0; i < 30; i++) {
      const words = i === 24 ? "the pelican rollback decision" : `routine turn number ${i}`;
      text += claudeLine({ uuid: `p${i}`, session, text: words, at: BASE_TIME + i * 1000 });
      // A turn that holds only reasoning (Claude Code writes each block as its own line): never
      // shown, so never a blank record in a page either.
      if (i === 22) text += thinkingOnlyLine(session, `t${i}`, BASE_TIME + i * 1000 + 500);
    }
    writeFileSync(path.join(home, ".claude", "projects", "-p", `${session}.jsonl`), text);
    expect(run("index").status).toBe(0);
    const hit = (JSON.parse(run("search", "pelican", "--json").stdout) as { hits: { id: string }[] })
      .hits[0]!;

    const opened = run("conversation", hit.id, "--limit", "6");
    expect(opened.status, opened.stderr).toBe(0);
    expect(opened.stdout).toMatch(/ {2}← the hit\nthe pelican rollback decision\n/);
    expect(opened.stdout).toContain("routine turn number 22");
    expect(opened.stdout).not.toContain("routine turn number 20\n");
    expect(opened.stdout).toContain("routine turn number 26");
    expect(opened.stdout).not.toContain("routine turn number 27");
    const page = JSON.parse(run("conversation", hit.id, "--limit", "6", "--json").stdout) as {
      records: { id: string; text: string }[];
      prev: string;
      next: string;
      focus: string;
    };
    expect(page.focus).toBe(hit.id);
    expect(page.records.map((r) => r.text)).toEqual([
      "routine turn number 21",
      "routine turn number 22",
      "routine turn number 23",
      "the pelican rollback decision",
      "routine turn number 25",
      "routine turn number 26",
    ]);
    expect(opened.stdout).toContain(`earlier: recall conversation ${hit.id} --before ${page.prev}`);
    const earlier = JSON.parse(
      run("conversation", hit.id, "--before", page.prev, "--limit", "3", "--json").stdout,
    ) as {
      records: { text: string }[];
    };
    expect(earlier.records.map((r) => r.text)).toEqual([
      "routine turn number 18",
      "routine turn number 19",
      "routine turn number 20",
    ]);
    const later = JSON.parse(
      run("conversation", hit.id, "--after", page.next, "--limit", "2", "--json").stdout,
    ) as {
      records: { text: string }[];
    };
    expect(later.records.map((r) => r.text)).toEqual(["routine turn number 27", "routine turn number 28"]);
    // A conversation id still starts at its beginning.
    const start = JSON.parse(run("conversation", `claude:${session}`, "--limit", "1", "--json").stdout) as {
      records: { text: string }[];
    };
    expect(start.records.map((r) => r.text)).toEqual(["routine turn number 0"]);

    const mixed = run("conversation", hit.id, "--after", page.next, "--before", page.prev);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toBe("recall: --after, --before: use only one of them\n");
    // get_conversation's own check of the cursor, named as the flag (a usage error).
    const badCursor = run("conversation", hit.id, "--before", "nope");
    expect(badCursor.status).toBe(2);
    expect(badCursor.stderr).toMatch(/^recall: --before: not a cursor returned by get_conversation\n$/);
    const badLimit = run("conversation", hit.id, "--limit", "0");
    expect(badLimit.status).toBe(2);
    expect(badLimit.stderr).toMatch(/^recall: --limit: .*\n$/);
    const badHit = run("conversation", `claude:${session}`, "--around", "pelican");
    expect(badHit.status).toBe(2);
    expect(badHit.stderr.split("\n")).toHaveLength(2);
    // A well-formed hit this conversation does not hold: NotFound (exit 3), named as the flag.
    const elsewhere = run("conversation", `claude:${session}`, "--around", `${hit.id}x`);
    expect([elsewhere.status, elsewhere.stderr]).toEqual([
      3,
      "recall: --around: the hit is not in this conversation\n",
    ]);
    // Every record forgotten: the page says it is empty rather than print nothing.
    expect(run("forget", "--since", "0", "--until", "4102444800000", "--yes").status).toBe(0);
    const empty = run("conversation", `claude:${session}`);
    expect([empty.status, empty.stdout]).toEqual([0, "no records on this page\n"]);
  });

  it("indexes a line dated past the year 9999 undated, and prints a stored time no Date can hold", () => {
    const { home, env } = setup();
    const run = (...args: string[]) => runCli(args, env);
    const dated = JSON.parse(
      claudeLine({ uuid: "c3", session: SESSION, text: "the yeti sighting", at: BASE_TIME + 2 }),
    ) as Record<string, unknown>;
    dated["timestamp"] = 1e20;
    appendFileSync(
      path.join(home, ".claude", "projects", "-p", `${SESSION}.jsonl`),
      `${JSON.stringify(dated)}\n`,
    );
    expect(run("index").status).toBe(0);
    const found = JSON.parse(run("search", "yeti", "--json").stdout) as { hits: { at: number }[] };
    expect(found.hits).toHaveLength(1);
    expect(found.hits[0]!.at).toBeLessThan(253402300800000);

    // An index written before that check holds such a time: every command still prints.
    const db = new Database(path.join(env.RECALL_HOME, "history.db"));
    db.prepare("UPDATE recall_documents SET at = 1e20").run();
    db.prepare("UPDATE recall_record_rows SET at = 1e20").run();
    db.close();
    for (const args of [
      ["search", "flamingo"],
      ["status"],
      ["index"],
      ["conversation", `claude:${SESSION}`],
    ]) {
      const out = run(...args);
      expect(out.stderr, args.join(" ")).toBe("");
      expect(out.status, args.join(" ")).toBe(0);
    }
    expect(run("search", "flamingo").stdout).toContain("? ");
  });
});

/** A Claude Code assistant line whose one block is thinking. */
function thinkingOnlyLine(session: string, uuid: string, at: number): string {
  const line = JSON.parse(claudeLine({ uuid, session, role: "assistant", text: "x", at })) as {
    message: { content: unknown[] };
  };
  line.message.content = [{ type: "thinking", thinking: "private reasoning", signature: "sig" }];
  return `${JSON.stringify(line)}\n`;
}
