import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MALLOC_SETTINGS, wantsMallocSettings } from "../src/app/malloc-settings.js";
import { CLI } from "./helpers/cli.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";

const [SETTING, VALUE] = Object.entries(MALLOC_SETTINGS)[0]!;

/**
 * Loaded into every node process of a run (NODE_OPTIONS): notes its pid, parent and malloc
 * setting; with BLOCK_RUN set, the process holding the setting then blocks, as a long index would.
 */
const REPORTER = `
  const fs = require("node:fs");
  const value = process.env[${JSON.stringify(SETTING)}];
  fs.appendFileSync(process.env.REPORT_FILE, [process.pid, process.ppid, value ?? "-"].join(" ") + "\\n");
  if (value && process.env.BLOCK_RUN) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
`;

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  processes: { pid: number; parent: number; setting: string }[];
}

const homes: TranscriptHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

function reporting(extra: Record<string, string>): { env: Record<string, string>; report: string } {
  const home = createTranscriptHome();
  homes.push(home);
  const reporter = path.join(home.root, "reporter.cjs");
  const report = path.join(home.root, "report.txt");
  writeFileSync(reporter, REPORTER);
  writeFileSync(report, "");
  const env = { ...home.env, NODE_OPTIONS: `--require ${reporter}`, REPORT_FILE: report, ...extra };
  return { env, report };
}

function processes(report: string): Run["processes"] {
  return readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [pid, parent, setting] = line.split(" ");
      return { pid: Number(pid), parent: Number(parent), setting: setting! };
    });
}

/** Runs the bin; `onChild` is called once a process holding the setting has reported. */
function runRecall(
  args: string[],
  extra: Record<string, string>,
  onChild?: (pids: { parent: number; child: number }) => void,
) {
  const { env, report } = reporting(extra);
  return new Promise<Run>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const poll = onChild
      ? setInterval(() => {
          const holding = processes(report).find((p) => p.setting === VALUE);
          if (holding) {
            clearInterval(poll);
            onChild({ parent: child.pid!, child: holding.pid });
          }
        }, 20)
      : undefined;
    child.once("close", (status, signal) => {
      clearInterval(poll);
      resolve({ status, signal, stdout, stderr, processes: processes(report) });
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("glibc's malloc settings for a foreground backfill", () => {
  it("are wanted on Linux only, and not when the environment sets them", () => {
    expect(wantsMallocSettings({}, "linux")).toBe(true);
    expect(wantsMallocSettings({ [SETTING]: "262144" }, "linux")).toBe(false);
    expect(wantsMallocSettings({}, "darwin")).toBe(false);
    expect(wantsMallocSettings({}, "win32")).toBe(false);
  });

  describe.skipIf(process.platform !== "linux")("`recall index` on Linux", () => {
    it.each(["index", "reindex"])(
      "%s runs in a child holding the setting, and ends as it does",
      async (command) => {
        const run = await runRecall([command, "--json"], {});
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ records: 0 });
        const [parent, child, ...more] = run.processes;
        expect(more).toEqual([]);
        expect(parent!.setting).toBe("-");
        expect(child).toEqual({ pid: child!.pid, parent: parent!.pid, setting: VALUE });
      },
    );

    it("is not used by a command that does not backfill in the foreground", async () => {
      const run = await runRecall(["status", "--json"], {});
      expect(run.processes).toHaveLength(1);
    });

    it("is run once when the environment already holds the setting", async () => {
      const run = await runRecall(["index", "--json"], { [SETTING]: VALUE });
      expect(run.status).toBe(0);
      expect(run.processes).toHaveLength(1);
    });

    it("passes the child's exit code and its one line of error on", async () => {
      const twice = await runRecall(["index", "--no-such-flag"], {});
      const once = await runRecall(["index", "--no-such-flag"], { [SETTING]: VALUE });
      expect(twice.processes).toHaveLength(2);
      expect(twice.status).not.toBe(0);
      expect(twice.status).toBe(once.status);
      expect(twice.stderr).toBe(once.stderr);
      expect(twice.stderr.trim().split("\n")).toHaveLength(1);
    });

    it("passes a signal on to the child, and ends by it", async () => {
      let child = 0;
      const run = await runRecall(["index"], { BLOCK_RUN: "1" }, (pids) => {
        child = pids.child;
        process.kill(pids.parent, "SIGTERM");
      });
      expect(run.signal).toBe("SIGTERM");
      expect(run.processes.find((p) => p.pid === child)?.setting).toBe(VALUE);
      // The child's end is what ended the parent: it is gone by now.
      expect(alive(child)).toBe(false);
    });
  });
});
