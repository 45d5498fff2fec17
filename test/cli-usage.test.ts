import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HISTORY_FILE, registerFunctions } from "../src/store/history-store.js";
import { migrate } from "../src/store/migrate.js";
import { openDatabase } from "../src/store/open.js";
import { HISTORY_MIGRATIONS } from "../src/store/schema/history.js";
import { CLI, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

/** A user mistake: exit 2 and exactly one line on stderr, never a stack trace. */
function expectUsageError(args: string[], pattern: RegExp, env: Record<string, string> = {}) {
  const r = runCli(args, env);
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^recall: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
}

/** Runs `body` with a temporary folder, removed afterwards whatever happens. */
function inTempDir(body: (dir: string) => void): void {
  const t = tempDir();
  try {
    body(t.dir);
  } finally {
    t.cleanup();
  }
}

describe("recall CLI shell", () => {
  it("prints help and version with exit 0", () => {
    const help = runCli(["--help"]);
    expect(help.status).toBe(0);
    for (const command of [
      "index",
      "search",
      "conversation",
      "status",
      "reindex",
      "forget",
      "export",
      "serve",
      "mcp",
      "tool",
      "bridge",
      "demo",
    ]) {
      expect(help.stdout).toContain(command);
    }
    const version = runCli(["--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("helps with any command through recall help, the help command included, and when given none", () => {
    const bare = runCli([]);
    expect([bare.status, bare.stderr]).toEqual([0, ""]);
    expect(bare.stdout).toMatch(/^Usage: recall \[options\] \[command\]/);
    for (const [name, usage] of [
      [[], /^Usage: recall \[options\] \[command\]/],
      [["search"], /^Usage: recall search /],
      [["help"], /^Usage: recall help /],
    ] as const) {
      const r = runCli(["help", ...name]);
      expect([r.status, r.stderr], name.join(" ")).toEqual([0, ""]);
      expect(r.stdout).toMatch(usage);
    }
  });

  it("rejects unknown commands and options with one line and exit 2", () => {
    expectUsageError(["frobnicate"], /unknown command/);
    expectUsageError(["--bogus"], /unknown option/);
    expectUsageError(["search"], /missing required argument/);
    expectUsageError(["search", "x", "--limit", "ten"], /--limit/);
    expectUsageError(["help", "bogus"], /unknown command 'bogus'/);
    expectUsageError(["search", "x", "--project", "  "], /--project must not be empty/);
    expectUsageError(["search", "x", "--session", ""], /--session must not be empty/);
    expectUsageError(["export", "x", "--out", ""], /--out must not be empty/);
    expectUsageError(["export", "x", "--list", "--out", "f"], /--list takes neither --out nor --file/);
  });

  it("says plainly when a command needs a verb", () => {
    expectUsageError(["bridge"], /needs a verb: post, ask, answer, decide, run or bind/);
  });

  it("validates search input with a usage error naming the flag (exit 2)", () => {
    const t = tempDir();
    const r = runCli(["search", "x", "--agent", "gpt"], { RECALL_HOME: t.dir });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^recall: --agent: /);
    t.cleanup();
  });

  it("takes plain dates and ages for --since and --until, and names a time it cannot read", () => {
    const t = tempDir();
    // Past validation, a search with no index yet is NotFound (3); a flag's mistake is a usage error (2).
    for (const args of [
      ["--since", "2026-01-01"],
      ["--since", "7d", "--until", "today"],
      ["--until", "yesterday"],
    ]) {
      const r = runCli(["search", "x", ...args], { RECALL_HOME: t.dir });
      expect(r.status, args.join(" ")).toBe(3);
    }
    const bad = runCli(["search", "x", "--since", "last tuesday"], { RECALL_HOME: t.dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^recall: --since: /);
    t.cleanup();
  });

  it("reports a search before any index exists as NotFound, never as an empty result", () => {
    const t = tempDir();
    const r = runCli(["search", "anything"], { RECALL_HOME: t.dir });
    expect(r.status).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/no index .*recall index/);
    t.cleanup();
  });

  it("names the field of an invalid config.json", async () => {
    const t = tempDir();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${t.dir}/config.json`, JSON.stringify({ sources: { claude: "yes" } }));
    const r = runCli(["index"], { RECALL_HOME: t.dir, HOME: t.dir });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/config\.json: sources\.claude: /);
    // `recall status` says why nothing can index it, not what to run: with no index yet …
    const early = runCli(["status"], { RECALL_HOME: t.dir, HOME: t.dir });
    expect(early.status).toBe(1);
    expect(early.stderr).toMatch(/config\.json: sources\.claude: /);
    // … and on an existing one.
    writeFileSync(`${t.dir}/config.json`, "{}");
    expect(runCli(["index"], { RECALL_HOME: t.dir, HOME: t.dir }).status).toBe(0);
    // Off a terminal (a script, a pipe), reindex prints its summary and nothing on stderr.
    const reindex = runCli(["reindex"], { RECALL_HOME: t.dir, HOME: t.dir });
    expect([reindex.status, reindex.stderr]).toEqual([0, ""]);
    expect(reindex.stdout).toMatch(/^Reindexed in this process: /);
    writeFileSync(`${t.dir}/config.json`, JSON.stringify({ sources: { claude: "yes" } }));
    const status = runCli(["status"], { RECALL_HOME: t.dir, HOME: t.dir });
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/none can start until the config is fixed: .*sources\.claude: /);
    // A search names it too, rather than answering as if the config were in effect.
    const search = runCli(["search", "anything"], { RECALL_HOME: t.dir, HOME: t.dir });
    expect([search.status, search.stdout]).toEqual([1, ""]);
    expect(search.stderr.trim().split("\n")).toHaveLength(1);
    expect(search.stderr).toMatch(/config\.json: sources\.claude: /);
    t.cleanup();
  });
});

describe("an index that cannot be opened", () => {
  it("is named with what to do, for readers and writers alike, never as 'not indexed yet'", () =>
    inTempDir((dir) => {
      const notAFolder = path.join(dir, "file");
      writeFileSync(notAFolder, "");
      const damaged = path.join(dir, "damaged");
      mkdirSync(damaged);
      writeFileSync(path.join(damaged, "history.db"), "garbage, not SQLite ".repeat(100));
      const folder = path.join(dir, "folder");
      mkdirSync(path.join(folder, "history.db"), { recursive: true });
      const linked = path.join(dir, "linked");
      mkdirSync(linked);
      symlinkSync(path.join(dir, "gone", "history.db"), path.join(linked, "history.db"));
      const looped = path.join(dir, "looped");
      mkdirSync(looped);
      symlinkSync(path.join(looped, "history.db"), path.join(looped, "history.db"));
      for (const args of [["search", "x"], ["status"], ["index"]]) {
        const loop = runCli(args, { RECALL_HOME: looped, HOME: dir });
        expect([loop.status, loop.stderr.trim()], args.join(" ")).toEqual([
          1,
          `recall: RECALL_HOME ${looped}: cannot open or create ${looped}/history.db (ELOOP)`,
        ]);
        // A link to nothing: not indexed yet for a reader; the writer, which cannot make it, says why.
        const l = runCli(args, { RECALL_HOME: linked, HOME: dir });
        expect([l.status, l.stderr.trim()], args.join(" ")).toEqual(
          args[0] === "index"
            ? [
                1,
                `recall: ${linked}/history.db is a link to ${dir}/gone/history.db, which cannot be opened or created (ENOENT); fix or remove the link`,
              ]
            : [
                3,
                `recall: no index at ${linked}/history.db (a link to ${dir}/gone/history.db, not there) yet; run \`recall index\` first`,
              ],
        );
        const c = runCli(args, { RECALL_HOME: folder, HOME: dir });
        expect([c.status, c.stderr.trim()], args.join(" ")).toEqual([
          1,
          `recall: ${folder}/history.db is not a file; move it aside and run \`recall index\` to build a new index`,
        ]);
        const a = runCli(args, { RECALL_HOME: notAFolder, HOME: dir });
        expect([a.status, a.stderr.trim()], args.join(" ")).toEqual([
          1,
          `recall: RECALL_HOME ${notAFolder}: cannot open or create ${notAFolder}/history.db (ENOTDIR)`,
        ]);
        const b = runCli(args, { RECALL_HOME: damaged, HOME: dir });
        expect([b.status, b.stderr.trim()], args.join(" ")).toEqual([
          1,
          `recall: ${damaged}/history.db is damaged (SQLITE_NOTADB); move it aside and run \`recall index\` to build a new index`,
        ]);
      }
      // A link to an index not made yet, in a folder that is there: not indexed yet, and indexing makes it.
      const ahead = path.join(dir, "ahead");
      mkdirSync(ahead);
      mkdirSync(path.join(dir, "elsewhere"));
      symlinkSync(path.join(dir, "elsewhere", "history.db"), path.join(ahead, "history.db"));
      const notYet = runCli(["search", "x"], { RECALL_HOME: ahead, HOME: dir });
      expect([notYet.status, notYet.stderr]).toEqual([
        3,
        `recall: no index at ${ahead}/history.db (a link to ${dir}/elsewhere/history.db, not there) yet; run \`recall index\` first\n`,
      ]);
      expect(runCli(["index"], { RECALL_HOME: ahead, HOME: dir }).status).toBe(0);
      expect(existsSync(path.join(dir, "elsewhere", "history.db"))).toBe(true);
    }));
});

describe("an index that cannot be upgraded", () => {
  it("names the backups folder when the backup taken before a migration cannot be written", async (ctx) => {
    // root passes every permission check: the index then runs as nobody, over files nobody owns.
    const asRoot = process.getuid?.() === 0;
    const nobody = { uid: 65534, gid: 65534 };
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, [CLI, ...args], {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", ...env },
        timeout: 60_000,
        ...(asRoot ? nobody : {}),
      });
    if (asRoot && run(["--version"], {}).status !== 0)
      ctx.skip("root here, and the CLI cannot run as nobody");
    const t = tempDir();
    try {
      const home = path.join(t.dir, "recall");
      const file = path.join(home, HISTORY_FILE);
      // An index an older release left: one migration behind.
      const old = openDatabase(file);
      registerFunctions(old);
      await migrate({
        db: old,
        file,
        migrations: HISTORY_MIGRATIONS.slice(0, -1),
        context: { engine: "fts5", projectionVersion: 1 },
        backupDir: path.join(home, "backups"),
      });
      old.close();
      const backups = path.join(home, "backups");
      mkdirSync(backups);
      chmodSync(backups, 0o500);
      if (asRoot) for (const p of [t.dir, home, file]) chownSync(p, nobody.uid, nobody.gid);
      const r = run(["index"], { RECALL_HOME: home, HOME: t.dir, XDG_CONFIG_HOME: "", XDG_DATA_HOME: "" });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^recall: RECALL_HOME ${home}: cannot write a backup of the index to ${backups}/history\\.db\\.v\\d+\\.\\S+\\.bak \\(EACCES\\)\\n$`,
        ),
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("a RECALL_HOME that cannot be created", () => {
  it("is named in one line, promptly, by every command that creates it", (ctx) => {
    // procfs refuses mkdir with ENOENT under a parent that exists, which sent Node's recursive
    // mkdir round for ever.
    if (!existsSync("/proc/1")) ctx.skip("no /proc here to refuse a mkdir");
    inTempDir((dir) => {
      const home = "/proc/1/recall-home-test";
      const env = { RECALL_HOME: home, HOME: dir };
      for (const args of [["index"], ["start", "--no-serve"], ["demo", "--messages", "50"]]) {
        const r = runCli(args, env, undefined, 20_000);
        expect([r.status, r.stdout], args.join(" ")).toEqual([1, ""]);
        expect(r.stderr).toMatch(
          new RegExp(`^recall: RECALL_HOME ${home}: cannot create this folder \\(E[A-Z]+\\)\\n$`),
        );
      }
      const out = runCli(["demo", "--out", `${home}/demo`, "--messages", "50"], env, undefined, 20_000);
      expect(out.status).toBe(1);
      expect(out.stderr).toMatch(/^recall: --out \/proc\/1\/\S+: cannot create this folder \(E[A-Z]+\)\n$/);
    });
  });
});

/**
 * Starts a large `recall demo` writing into `root` and kills it (SIGKILL: no handler runs) once
 * corpus files are there, as a Ctrl-C or a crash mid-generation would.
 */
async function killMidDemo(args: string[], env: Record<string, string>, root: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, "demo", "--messages", "5000000", ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    const deadline = Date.now() + 30_000;
    while (!existsSync(path.join(root, ".claude"))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error("the demo wrote nothing");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Files under a folder, at any depth. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe("recall demo", () => {
  it("suggests the showcase's search, and names planted needles only when there are some", () => {
    const t = tempDir();
    try {
      const env = { RECALL_HOME: path.join(t.dir, "recall"), HOME: t.dir };
      const none = runCli(["demo", "--out", path.join(t.dir, "none"), "--messages", "0"], env);
      expect(none.status, none.stderr).toBe(0);
      expect(none.stdout).toContain("no planted needles");
      const suggested = none.stdout.match(/5 showcase sessions; try: (node \S+) search "([^"]+)"\n/);
      expect(suggested, none.stdout).not.toBeNull();
      const some = runCli(["demo", "--out", path.join(t.dir, "some"), "--messages", "50"], env);
      expect(some.stdout).toMatch(
        /\d+ planted needles? \(unique words the tests look for\), e\.g\. "\S[^"]*"\n/,
      );
      // The suggestion finds a showcase session once the corpus is indexed.
      const demoEnv = {
        ...env,
        CLAUDE_CONFIG_DIR: path.join(t.dir, "none", ".claude"),
        CODEX_HOME: path.join(t.dir, "none", ".codex"),
      };
      expect(runCli(["index"], demoEnv).status).toBe(0);
      const found = JSON.parse(runCli(["search", suggested![2]!, "--json"], demoEnv).stdout);
      expect(found.hits[0].title).toBe("Move the session store from Redis to Postgres");
    } finally {
      t.cleanup();
    }
  });

  it("runs again into a folder an interrupted demo left behind", async () => {
    const t = tempDir();
    try {
      const env = { RECALL_HOME: path.join(t.dir, "recall"), HOME: t.dir };
      const out = path.join(t.dir, "out");
      await killMidDemo(["--out", out], env, out);
      const r = runCli(["demo", "--out", out, "--messages", "50", "--json"], env);
      expect(r.status, r.stderr).toBe(0);
      const manifest = JSON.parse(r.stdout) as ShownManifest & { root: string };
      expect(manifest.root).toBe(out);
      // The cut-short corpus was cleared, not mixed into the new one.
      expect(filesUnder(path.join(out, ".claude"))).toHaveLength(claudeFiles(manifest));
      // Killed at its very start, while writing the first manifest: only that half-written file is left.
      const early = path.join(t.dir, "early");
      mkdirSync(early);
      writeFileSync(path.join(early, "demo-manifest.json.partial"), '{"root": "');
      const again = runCli(["demo", "--out", early, "--messages", "50"], env);
      expect(again.status, again.stderr).toBe(0);
      expect(existsSync(path.join(early, "demo-manifest.json.partial"))).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it("is written again by recall start when an earlier one was cut short", async () => {
    const t = tempDir();
    try {
      const env = {
        RECALL_HOME: path.join(t.dir, "recall"),
        HOME: t.dir,
        XDG_DATA_HOME: "",
        XDG_CONFIG_HOME: "",
        CLAUDE_CONFIG_DIR: "",
        CODEX_HOME: "",
        OPENCODE_DB: "",
      };
      const root = path.join(env.RECALL_HOME, "demo");
      await killMidDemo([], env, root);
      const r = runCli(["start", "--no-serve"], env);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/writing a demo corpus/);
      const manifest = JSON.parse(
        readFileSync(path.join(root, "demo-manifest.json"), "utf8"),
      ) as ShownManifest;
      expect(filesUnder(path.join(root, ".claude"))).toHaveLength(claudeFiles(manifest));
    } finally {
      t.cleanup();
    }
  });

  it("writes only into a new, empty or earlier demo folder, twice alike, and keeps RECALL_HOME private", () =>
    inTempDir((dir) => {
      const home = path.join(dir, "recall");
      const env = { RECALL_HOME: home, HOME: path.join(dir, "home") };
      mkdirSync(env.HOME);
      // A folder holding someone's databases is refused, and left as it was.
      const theirs = path.join(dir, "theirs");
      mkdirSync(path.join(theirs, ".config", "dyad"), { recursive: true });
      writeFileSync(path.join(theirs, ".config", "dyad", "sqlite.db"), "precious");
      expectUsageError(["demo", "--out", theirs, "--messages", "50"], /holds other files/, env);
      expect(readFileSync(path.join(theirs, ".config", "dyad", "sqlite.db"), "utf8")).toBe("precious");
      // Without --out, the folder it picked is named as its own, not as an --out it was never given.
      mkdirSync(path.join(home, "demo", "mine"), { recursive: true, mode: 0o700 });
      expectUsageError(
        ["demo", "--messages", "50"],
        /^recall: demo folder \S+: holds other files .*: move it aside$/,
        env,
      );
      rmSync(path.join(home, "demo"), { recursive: true });
      expectUsageError(["demo", "--out", env.HOME, "--messages", "50"], /home folder/, env);
      expectUsageError(["demo", "--out", "", "--messages", "50"], /--out must not be empty/, env);
      expectUsageError(
        ["demo", "--messages", "99999999999999"],
        /--messages must be a whole number up to/,
        env,
      );
      // The default folder, twice: the second run replaces the first corpus with the same one.
      const manifests = [1, 2].map(() => {
        const r = runCli(["demo", "--messages", "50", "--json"], env);
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as { counts: unknown; needles: unknown };
      });
      expect(manifests[1]).toEqual(manifests[0]);
      expect(statSync(home).mode & 0o777).toBe(0o700);
      // HOME by another name, a file, and an earlier demo whose folder links out: all refused.
      symlinkSync(env.HOME, path.join(dir, "home-link"));
      expectUsageError(["demo", "--out", path.join(dir, "home-link")], /your home folder/, env);
      expectUsageError(
        ["demo", "--out", path.join(theirs, ".config", "dyad", "sqlite.db")],
        /not a folder/,
        env,
      );
      const demo = path.join(home, "demo");
      const outside = path.join(dir, "outside");
      mkdirSync(path.join(outside, "share", "opencode"), { recursive: true });
      writeFileSync(path.join(outside, "share", "opencode", "opencode.db"), "mine");
      rmSync(path.join(demo, ".local"), { recursive: true });
      symlinkSync(outside, path.join(demo, ".local"));
      expectUsageError(["demo", "--messages", "50"], /leads out of the folder/, env);
      expect(readFileSync(path.join(outside, "share", "opencode", "opencode.db"), "utf8")).toBe("mine");
    }));
});

describe("recall start", () => {
  it("rejects a bad --port before it writes or indexes anything", () =>
    inTempDir((dir) => {
      const env = { RECALL_HOME: path.join(dir, "recall"), HOME: dir };
      for (const args of [
        ["start", "--port", "abc"],
        ["start", "--no-serve", "--port", "70000"],
      ])
        expectUsageError(args, /--port must be a whole number/, env);
      expect(existsSync(env.RECALL_HOME)).toBe(false);
    }));
});

interface ShownManifest {
  counts: { claude: { files: number } };
  showcase?: { sessions: number };
}

/** The Claude Code files a demo wrote: the generated ones and the showcase's, one per session. */
function claudeFiles(manifest: ShownManifest): number {
  expect(manifest.showcase?.sessions).toBe(5);
  return manifest.counts.claude.files + manifest.showcase!.sessions;
}
