/**
 * A delegated run's log and metadata are the user's alone: 0600 under umask 000, as recall's
 * databases and `recall export --out` files are (issue #30, item 8; export's mode is tested in
 * export-guard.test.ts).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./helpers/cli.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";

describe("bridge run files", () => {
  let h: TranscriptHome;
  afterEach(() => h?.cleanup());

  it("are created 0600 whatever the umask, and stay so when appended to", () => {
    h = createTranscriptHome();
    const bridge = (args: string, input: string) =>
      spawnSync("sh", ["-c", `umask 000; exec "${process.execPath}" "${CLI}" bridge ${args}`], {
        encoding: "utf8",
        env: h.env,
        input,
      });
    const started = bridge("run --job build --agent codex --meta ticket=AB-12", "compiling\n");
    expect(started.stderr).toBe("");
    expect(started.status).toBe(0);
    const runs = path.join(h.recallHome, "bridge", "runs");
    const files = readdirSync(runs).filter((f) => f.endsWith(".log") || f.endsWith(".json"));
    expect(files.length).toBe(2);
    const base = files.find((f) => f.endsWith(".log"))!.slice(0, -".log".length);
    expect(bridge(`run --append ${base}`, "linking\n").status).toBe(0);
    for (const file of files) expect(statSync(path.join(runs, file)).mode & 0o777, file).toBe(0o600);
  });
});
