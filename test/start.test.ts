import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

describe("npm start on a machine without agent history", () => {
  it("indexes the demo corpus and prints a sample search with a hit", () => {
    const t = tempDir();
    const env = {
      HOME: t.dir,
      RECALL_HOME: "",
      XDG_DATA_HOME: "",
      XDG_CONFIG_HOME: "",
      CLAUDE_CONFIG_DIR: "",
      CODEX_HOME: "",
      OPENCODE_DB: "",
    };
    const r = runCli(["start"], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/No agent history found/);
    expect(r.stdout).toMatch(/Indexed \d+ records/);
    const hits = r.stdout.match(/^\s+transcript:/gm) ?? [];
    expect(hits.length).toBeGreaterThan(0);
    expect(existsSync(path.join(t.dir, ".local", "share", "recall", "history.db"))).toBe(true);
    // A second start reuses the index: nothing is duplicated.
    const again = runCli(["start"], env);
    expect(again.status, again.stderr).toBe(0);
    t.cleanup();
  });
});
