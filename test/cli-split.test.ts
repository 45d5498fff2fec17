import { spawn } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoCorpus, type DemoManifest } from "../src/demo/index.js";
import { CLI, runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

let manifest: DemoManifest;
let dir: string;
let cleanup = () => {};

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  dir = t.dir;
  manifest = await generateDemoCorpus({
    root: t.dir,
    seed: 5,
    sources: { claude: false, codex: false, opencode: false, dyad: { messages: 1500 } },
  });
  // The embedded index built once, as a host that attached and drained would have it.
  const built = runCli([
    "tool",
    "search_chats",
    "--attach",
    "--db",
    manifest.paths.dyadDb,
    "--app",
    "1",
    "--args",
    '{"query":"x"}',
  ]);
  expect(built.status, built.stderr).toBe(0);
});
afterAll(() => cleanup());

const host = (name: string) => {
  const file = path.join(dir, `${name}.db`);
  copyFileSync(manifest.paths.dyadDb, file);
  return file;
};
const split = (file: string, env: Record<string, string> = {}) =>
  runCli(["split", "--db", file, "--json"], env);

describe("recall split", () => {
  it("splits a host's index, then `recall tool` answers from history.db as before", () => {
    const file = host("plain");
    const needle = manifest.needles.find((n) => n.source === "dyad")!;
    const args = ["--app", String(needle.ref.appId), "--args", JSON.stringify({ query: needle.query })];
    const before = runCli(["tool", "search_chats", "--attach", "--db", file, ...args]);
    expect(before.status, before.stderr).toBe(0);
    const r = split(file);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.status).toBe("switched");
    expect(report.history).toBe(path.join(dir, "plain.history.db"));
    expect(report.counts.recall_documents).toBeGreaterThan(1000);
    expect(existsSync(report.backup)).toBe(true);
    const after = runCli(["tool", "search_chats", "--attach", "--db", file, ...args]);
    expect(after.stdout).toBe(before.stdout);
    // Again: already switched, the same verified figures.
    const again = JSON.parse(split(file).stdout);
    expect([again.status, again.hashes]).toEqual(["switched", report.hashes]);
  });

  it("resumes after the process is killed, to the same verified result", async () => {
    const reference = JSON.parse(split(host("reference")).stdout);
    for (const [i, ms] of [150, 250, 350, 500].entries()) {
      const file = host(`killed-${i}`);
      const child = spawn(process.execPath, [CLI, "split", "--db", file, "--json"], { stdio: "ignore" });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await new Promise((resolve) => setTimeout(resolve, ms));
      child.kill("SIGKILL");
      await exited;
      const resumed = split(file);
      expect(resumed.status, resumed.stderr).toBe(0);
      const report = JSON.parse(resumed.stdout);
      expect(report.status).toBe("switched");
      expect(report.counts).toEqual(reference.counts);
      expect(report.hashes).toEqual(reference.hashes);
    }
  });

  it("says what is wrong in one line: no --db, a missing file, RECALL_SPLIT=off", () => {
    const none = runCli(["split"]);
    expect([none.status, none.stderr.trim()]).toEqual([2, "recall: --db is required"]);
    const missing = runCli(["split", "--db", path.join(dir, "nope.db")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^recall: --db .*nope\.db: no such file$/);
    const file = host("off");
    const off = split(file, { RECALL_SPLIT: "off" });
    expect(off.status).toBe(2);
    expect(off.stderr.trim()).toMatch(/^recall: RECALL_SPLIT=off .*: unset it to split$/);
    expect(existsSync(path.join(dir, "off.history.db"))).toBe(false);
  });

  it("--drop-legacy: refused in one line before the split, then after it the host keeps its own tables and `recall tool` answers as before", () => {
    const file = host("drop");
    const refused = runCli(["split", "--db", file, "--drop-legacy"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^recall: --drop-legacy: .* not a split's history\.db; run `recall split --db .*` until it reports the switch first$/,
    );
    const needle = manifest.needles.find((n) => n.source === "dyad")!;
    const args = ["--app", String(needle.ref.appId), "--args", JSON.stringify({ query: needle.query })];
    const before = runCli(["tool", "search_chats", "--attach", "--db", file, ...args]);
    expect(split(file).status).toBe(0);
    const dropped = runCli(["split", "--db", file, "--drop-legacy", "--json"]);
    expect(dropped.status, dropped.stderr).toBe(0);
    const report = JSON.parse(dropped.stdout);
    expect(report.dropped).toEqual(expect.arrayContaining(["recall_documents", "recall_fts"]));
    expect(existsSync(report.backup)).toBe(true);
    const after = runCli(["tool", "search_chats", "--attach", "--db", file, ...args]);
    expect(after.status, after.stderr).toBe(0);
    expect(after.stdout).toBe(before.stdout);
  });
});
