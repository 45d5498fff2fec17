import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

let t: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(() => {
  t = tempDir("recall-bridge-cli-");
  env = { RECALL_HOME: path.join(t.dir, "recall"), HOME: path.join(t.dir, "home") };
});
afterAll(() => t.cleanup());

const json = (args: string[], input?: string) => {
  const r = runCli([...args, "--json"], env, input);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe("recall bridge", () => {
  it("writes every record type, and recall index + search find them", () => {
    const posted = json([
      "bridge",
      "post",
      "--from",
      "lead",
      "--to",
      "w1",
      "--to",
      "w2",
      "broadcast",
      "about",
      "marmot",
    ]);
    expect(posted.recipients).toEqual(["w1", "w2"]);
    const piped = json(
      ["bridge", "post", "--from", "w1", "--to", "lead", "--kind", "progress"],
      "progress on marmot\n",
    );
    expect(piped.kind).toBe("progress");
    const asked = json(["bridge", "ask", "--from", "w1", "which", "marmot", "burrow?"]);
    json(["bridge", "answer", String(asked.id), "the", "northern", "burrow"]);
    const decided = json([
      "bridge",
      "decide",
      "burrow-choice",
      "--by",
      "lead",
      "--rationale",
      "closest",
      "northern",
      "marmot",
      "burrow",
    ]);
    expect(decided).toMatchObject({ topic: "burrow-choice", rev: 1 });
    const run = json(
      [
        "bridge",
        "run",
        "--job",
        "dig",
        "--started",
        "2026-06-01T12:00:00Z",
        "--session",
        "s-1",
        "--meta",
        "depth=3",
        "--meta",
        "title=2026",
        "--meta",
        "exitCode=0",
      ],
      "digging marmot tunnels\n",
    );
    expect(run.run).toBe("dig-20260601T120000Z.log");
    // JSON keeps its type, except in a known text field: the title is "2026", which the reader accepts.
    expect(JSON.parse(readFileSync(run.metadata as string, "utf8"))).toMatchObject({
      depth: 3,
      title: "2026",
      exitCode: 0,
    });
    json(["bridge", "run", "--append", "dig-20260601T120000Z"], "more marmot output\n");
    expect(json(["bridge", "bind", "--peer", "w1", "--session", "s-1", "--agent", "claude"])).toMatchObject({
      created: true,
    });
    expect(existsSync(path.join(env.RECALL_HOME!, "bridge", "bridge.db"))).toBe(true);

    const index = runCli(["index"], env);
    expect(index.status).toBe(0);
    const search = runCli(["search", "marmot", "--json", "--limit", "50"], env);
    expect(search.status).toBe(0);
    const hits = (JSON.parse(search.stdout) as { hits: { id: string; kind: string }[] }).hits;
    const kinds = new Set(hits.map((h) => h.kind));
    for (const k of ["message", "progress", "decision", "run"]) expect(kinds).toContain(k);
    expect(hits.map((h) => h.id)).toContain(`message:${String(posted.id)}`);
    expect(hits.map((h) => h.id)).toContain("decision:burrow-choice@1");
    expect(hits.map((h) => h.id)).toContain("run:dig-20260601T120000Z.log#0");
  });

  it("rejects bad input with one stderr line and exit 2", () => {
    const cases: string[][] = [
      ["bridge", "post", "--from", "a", "no recipients"],
      ["bridge", "post", "--from", "bad peer", "--to", "b", "x"],
      ["bridge", "post", "--from", "a", "--to", "b", "--kind", "shout", "x"],
      ["bridge", "post", "--from", "a", "--to", "b"],
      ["bridge", "decide", "bad topic", "--by", "a", "x"],
      ["bridge", "run", "--job", "bad/job"],
      ["bridge", "run"],
      ["bridge", "run", "--job", "j", "--started", "yesterday"],
      ["bridge", "run", "--job", "j", "--meta", "novalue"],
      ["bridge", "bind", "--peer", "a"],
      ["bridge", "frobnicate"],
      ["bridge", "run", "--job", "j", "--log-file", env.HOME!],
    ];
    for (const args of cases) {
      const r = runCli(args, env, "");
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
    const asked = json(["bridge", "ask", "--from", "a", "once"]);
    expect(runCli(["bridge", "answer", String(asked.id), "one"], env).status).toBe(0);
    const twice = runCli(["bridge", "answer", String(asked.id), "two"], env);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/already answered/);
    const unknown = runCli(["bridge", "answer", "q-unknown", "x"], env);
    expect(unknown.status).toBe(3);
    // A store folder that is a file.
    const notDir = `${env.RECALL_HOME}-file`;
    writeFileSync(notDir, "not a folder");
    const file = runCli(["bridge", "post", "--from", "a", "--to", "b", "x"], {
      ...env,
      RECALL_BRIDGE_DIR: notDir,
    });
    expect([file.status, file.stderr.trim().split("\n").length]).toEqual([2, 1]);
    expect(file.stderr).toMatch(/cannot be created or opened \(ENOTDIR\)/);
    // A folder that cannot be made (procfs says ENOENT under a folder that exists).
    if (existsSync("/proc/1")) {
      const proc = runCli(["bridge", "post", "--from", "a", "--to", "b", "x"], {
        ...env,
        RECALL_BRIDGE_DIR: "/proc/1/recall-bridge",
      });
      expect([proc.status, proc.stderr.trim().split("\n").length]).toEqual([2, 1]);
      expect(proc.stderr).toMatch(
        /bridge store \/proc\/1\/recall-bridge: cannot be created or opened \(ENOENT\)/,
      );
    }
  });
});
