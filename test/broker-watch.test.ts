/**
 * New sessions in seconds (issue #32): with a broker running, a new transcript file is
 * searchable within 2 s of being written, through the broker's filesystem watch. The discovery
 * sweep repeats only 30 s after the previous one started, and the broker's first sweep starts
 * after this test spawned it: a file found before spawn + 30 s was found by the watch.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DISCOVERY_INTERVAL_MS } from "../src/sources/files/jsonl-source.js";
import type { SearchCoverage } from "../src/store/coverage-row.js";
import { CLI } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

/** The bound, from the write to a search that finds it. */
const DEADLINE_MS = 2_000;
const POLL_MS = 50;

const S1 = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e01";
const S2 = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e02";
const S3 = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e03";

interface SearchOut {
  hits: { id: string; relaxed?: boolean }[];
  coverage: SearchCoverage;
}

const t = tempDir("recall-watch-");
const home = path.join(t.dir, "home");
const projects = path.join(home, ".claude", "projects");
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
for (const k of [
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "OPENCODE_DB",
  "RECALL_ENGINE",
  "RECALL_SESSION_ID",
]) {
  delete env[k];
}
Object.assign(env, { HOME: home, RECALL_HOME: path.join(t.dir, "recall"), NO_COLOR: "1" });

let client: Client | null = null;
afterAll(async () => {
  await client?.close().catch(() => {});
  t.cleanup();
});

const session = (id: string, text: string) =>
  claudeLine({ uuid: `${id}-1`, session: id, text, at: BASE_TIME }) +
  claudeLine({ uuid: `${id}-2`, session: id, role: "assistant", text: "noted", at: BASE_TIME + 1 });

describe("a broker's filesystem watch", () => {
  it("makes a new session file searchable within 2 s of its write", async () => {
    // Without the watch, only a sweep could find the file: none is due within the deadline.
    expect(DISCOVERY_INTERVAL_MS).toBeGreaterThan(DEADLINE_MS);
    mkdirSync(path.join(projects, "-p"), { recursive: true });
    writeFileSync(path.join(projects, "-p", `${S1}.jsonl`), session(S1, "the first kingfisher"));

    const spawnedAt = Date.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const c = new Client({ name: "watch-test", version: "1.0.0" });
    await c.connect(transport).catch((error: Error) => {
      throw new Error(`${error.message}; server stderr:\n${stderr.slice(-2000)}`);
    });
    client = c;

    const search = async (query: string): Promise<SearchOut> => {
      const result = await c.callTool({ name: "search_history", arguments: { query } });
      const text = (result as { content: { text: string }[] }).content[0]!.text;
      expect(result.isError, text).toBeFalsy();
      return JSON.parse(text) as SearchOut;
    };
    const poll = async <T>(what: string, probe: () => Promise<T | undefined>, ms: number, every: number) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; server stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, every));
      }
    };
    // Elected, first sweep done, everything read (a loaded machine may take a while).
    await poll(
      "the broker caught up",
      async () => {
        const out = await search("kingfisher");
        return out.hits.length > 0 && !Array.isArray(out.coverage) ? true : undefined;
      },
      30_000,
      100,
    );
    expect(stderr).toMatch(/elected broker/);
    expect(stderr).toMatch(/claude-code: watching \d+ folders for new files/);

    /** Writes a session and returns how long until a search finds it. */
    const searchableAfter = async (file: string, id: string, word: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      const written = performance.now();
      writeFileSync(file, session(id, `the ${word} arrives`));
      await poll(
        `${word} searchable`,
        async () => {
          const out = await search(word);
          return out.hits.some((h) => !h.relaxed && h.id.includes(id)) ? true : undefined;
        },
        DEADLINE_MS,
        POLL_MS,
      );
      return performance.now() - written;
    };
    // In a project folder the broker watches, and in a new project folder (created just now).
    const known = await searchableAfter(path.join(projects, "-p", `${S2}.jsonl`), S2, "heronry");
    const fresh = await searchableAfter(path.join(projects, "-q", `${S3}.jsonl`), S3, "ospreys");
    expect(known).toBeLessThanOrEqual(DEADLINE_MS + POLL_MS);
    expect(fresh).toBeLessThanOrEqual(DEADLINE_MS + POLL_MS);
    // No second sweep can have started yet: the watch found them.
    expect(Date.now() - spawnedAt).toBeLessThan(DISCOVERY_INTERVAL_MS);
  });
});
