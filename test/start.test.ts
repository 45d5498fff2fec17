import Database from "better-sqlite3";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { httpRequest, login, startServe } from "./helpers/http.js";
import { homeOnlyEnv } from "./helpers/home-only.js";
import { tempDir } from "./helpers/tmp.js";

describe("npm start on a machine without agent history", () => {
  it("indexes the demo corpus and prints a sample search with a hit (--no-serve stops there)", () => {
    const t = tempDir();
    const env = homeOnlyEnv(t.dir);
    const r = runCli(["start", "--no-serve"], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/No agent history found/);
    expect(r.stdout).toMatch(/Indexed \d+ records/);
    const hits = r.stdout.match(/^\s+transcript:/gm) ?? [];
    expect(hits.length).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(/Dashboard:/);
    // No `recall` on this PATH: every command it suggests runs from here as printed.
    const sampleLine = r.stdout.match(/^Sample search: (node \S+main\.js) search "(.+)"$/m);
    expect(sampleLine, r.stdout).not.toBeNull();
    expect(r.stdout).toContain(`Try: ${sampleLine![1]} search "<words>" --json (\`npm link\``);
    const sampled = runCli(["search", sampleLine![2]!, "--json"], { ...env, RECALL_HOME: "" });
    expect(JSON.parse(sampled.stdout).hits.length).toBeGreaterThan(0);
    expect(existsSync(path.join(t.dir, ".local", "share", "recall", "history.db"))).toBe(true);
    // A second start reuses the demo corpus and the index: nothing is duplicated.
    const again = runCli(["start", "--no-serve"], env);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/using the demo corpus/);
    expect(again.stdout).toMatch(/Indexed 0 records/);
    // --json: one object per line, the sample search's hits as search_history gives them.
    const json = runCli(["start", "--no-serve", "--json"], env);
    expect([json.status, json.stderr]).toEqual([0, ""]);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1);
    expect(lines[0].demo).toBe(path.join(t.dir, ".local", "share", "recall", "demo"));
    expect(lines[0].index).toMatchObject({ records: 0, by: "local", engine: "fts5" });
    expect(lines[0].sample.hits.length).toBeGreaterThan(0);
    expect(lines[0].sample.command).toMatch(/search "/);
    // A corpus an earlier recall wrote before the showcase gets it on reuse, and its sample search.
    const demoRoot = path.join(t.dir, ".local", "share", "recall", "demo");
    const manifestFile = path.join(demoRoot, "demo-manifest.json");
    const { showcase: _dropped, ...older } = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      showcase?: unknown;
    };
    writeFileSync(manifestFile, JSON.stringify(older));
    const showcaseDir = path.join(demoRoot, ".claude", "projects", "-home-demo-code-design-system");
    rmSync(showcaseDir, { recursive: true });
    const upgraded = runCli(["start", "--no-serve"], env);
    expect(upgraded.status, upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toMatch(/^Sample search: node \S+ search "session store decision"$/m);
    expect(existsSync(showcaseDir)).toBe(true);
    expect(JSON.parse(readFileSync(manifestFile, "utf8")).showcase.sessions).toBe(5);
    // The same home through a link: the same corpus, reused.
    const linked = `${t.dir}-link`;
    symlinkSync(t.dir, linked);
    const viaLink = runCli(["start", "--no-serve"], homeOnlyEnv(linked));
    rmSync(linked);
    expect(viaLink.status, viaLink.stderr).toBe(0);
    expect(viaLink.stdout).toMatch(/using the demo corpus/);
    // An index a newer recall built: this one says it does not index, and searches all the same.
    const db = new Database(path.join(t.dir, ".local", "share", "recall", "history.db"));
    db.prepare("UPDATE recall_meta SET value = value + 1 WHERE key = 'readers_version'").run();
    db.close();
    const newer = runCli(["start", "--no-serve"], env);
    expect(newer.status, newer.stderr).toBe(0);
    expect(newer.stderr).toMatch(/^recall: history\.db was built by a newer recall/);
    expect(newer.stdout.match(/^\s+transcript:/gm)?.length ?? 0).toBeGreaterThan(0);
    t.cleanup();
  });

  it("names its own demo folder, not an --out it was never given, when that folder holds something else", () => {
    const t = tempDir();
    const env = homeOnlyEnv(t.dir);
    const demo = path.join(t.dir, ".local", "share", "recall", "demo");
    mkdirSync(path.join(demo, ".claude"), { recursive: true });
    for (const manifest of [
      JSON.stringify({ root: "/elsewhere/demo", seed: 1, incomplete: true }),
      "not json",
      "{}",
      "42",
      JSON.stringify({ root: "/elsewhere/demo", paths: {}, needles: [] }),
    ]) {
      writeFileSync(path.join(demo, "demo-manifest.json"), manifest);
      const r = runCli(["start", "--no-serve"], env);
      expect(r.status, manifest).toBe(2);
      expect(r.stderr).toBe(
        `recall: demo folder ${demo}: holds other files and no earlier demo corpus of its own: move it aside\n`,
      );
    }
    t.cleanup();
  });

  it("then serves the dashboard over the demo corpus until stopped", async () => {
    const t = tempDir();
    const started = await startServe(homeOnlyEnv(t.dir), ["start", "--port", "0"], 120_000);
    try {
      expect(started.stdout()).toMatch(/Sample search/);
      expect(started.loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
      const cookie = await login(started.loginUrl);
      const page = await httpRequest(started.port, "/", { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(page.body).toContain("<title>recall</title>");
      const search = await httpRequest(started.port, "/api/search?q=decision", {
        headers: { Cookie: cookie },
      });
      expect(search.status).toBe(200);
      expect((JSON.parse(search.body) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    } finally {
      expect(await started.stop()).toBe(0);
      t.cleanup();
    }
  }, 180_000);
});
