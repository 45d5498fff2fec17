import Database from "better-sqlite3";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoCorpus, type DemoManifest } from "../src/demo/index.js";
import { runCli } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

let manifest: DemoManifest;
let cleanup = () => {};

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  manifest = await generateDemoCorpus({ root: t.dir, seed: 3, messages: 800 });
});
afterAll(() => cleanup());

const tool = (name: string, args: unknown, extra: string[] = []) =>
  runCli(["tool", name, "--db", manifest.paths.dyadDb, ...extra, "--args", JSON.stringify(args)]);

describe("recall tool (acting as the host)", () => {
  it("search_chats finds a planted Dyad needle and read_chat reads around it", () => {
    const needle = manifest.needles.find((n) => n.source === "dyad")!;
    const appId = String(needle.ref.appId);
    const found = tool("search_chats", { query: needle.query }, ["--app", appId]);
    expect(found.status, found.stderr).toBe(0);
    const out = JSON.parse(found.stdout);
    expect(out.archival_content).toBe(true);
    const hit = out.results.find((r: { chat_id: number }) => r.chat_id === needle.ref.chatId);
    expect(hit, JSON.stringify(out).slice(0, 500)).toBeDefined();
    const messageId = hit.matches[0].message_id;

    const read = tool("read_chat", { chat_id: needle.ref.chatId, around_message_id: messageId }, [
      "--app",
      appId,
    ]);
    expect(read.status, read.stderr).toBe(0);
    const page = JSON.parse(read.stdout);
    expect(page.messages.map((m: { message_id: number }) => m.message_id)).toContain(messageId);
    // Canaries live only in payloads the projection drops.
    for (const canary of manifest.canaries) {
      expect(found.stdout).not.toContain(canary);
      expect(read.stdout).not.toContain(canary);
    }
  });

  it("prints a tool error as JSON on stdout with exit 3", () => {
    const missing = tool("read_chat", { chat_id: 99_999_999 }, ["--app", "1"]);
    expect(missing.status).toBe(3);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: { kind: "NotFound", message: "chat or message not found" },
    });
    const invalid = tool("search_chats", { query: "   " }, ["--app", "1"]);
    expect(invalid.status).toBe(3);
    expect(JSON.parse(invalid.stdout).error.kind).toBe("Validation");
    expect(JSON.parse(invalid.stdout).error.message).toMatch(/^query: /);
  });

  it("treats CLI misuse as a usage error (exit 2, one line)", () => {
    for (const args of [
      ["tool", "search_chats", "--app", "1"],
      ["tool", "search_chats", "--db", manifest.paths.dyadDb],
      ["tool", "nope", "--db", manifest.paths.dyadDb, "--app", "1"],
      ["tool", "search_chats", "--db", manifest.paths.dyadDb, "--app", "1", "--args", "{bad json"],
      ["tool", "search_chats", "--db", manifest.paths.dyadDb, "--app", "1", "--args", "[]"],
      ["tool", "search_chats", "--db", manifest.paths.dyadDb, "--app", "999"],
      // A file that is not an SQLite database.
      ["tool", "search_chats", "--db", path.join(manifest.root, "demo-manifest.json"), "--app", "1"],
    ]) {
      const r = runCli(args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
  });

  it("touches no database it refuses: an unknown tool or app, or one that is not Dyad-shaped", async () => {
    const t = tempDir();
    try {
      const { copy } = await freshHost(t.dir, 2, 20);
      const before = readFileSync(copy);
      const r = runCli(["tool", "bogus_tool", "--db", copy, "--app", "1"]);
      expect([r.status, r.stderr.trim()]).toEqual([
        2,
        'recall: unknown tool "bogus_tool" (search_chats, read_chat)',
      ]);
      const app = runCli(["tool", "search_chats", "--db", copy, "--app", "999"]);
      expect([app.status, app.stderr.trim()]).toEqual([2, `recall: --app 999: no such app in ${copy}`]);
      expect(readFileSync(copy).equals(before)).toBe(true);
      expect(existsSync(`${copy}.recall-backups`)).toBe(false);
      const empty = path.join(t.dir, "empty.db");
      new Database(empty).close();
      const other = runCli(["tool", "search_chats", "--db", empty, "--app", "1"]);
      expect(other.status).toBe(2);
      expect(other.stderr.trim()).toMatch(/^recall: --db .*empty\.db: /);
      expect(other.stdout).toBe("");
    } finally {
      t.cleanup();
    }
  });

  it("leaves the host database's journal mode as the host set it", () => {
    const t = tempDir();
    try {
      const copy = path.join(t.dir, "host.db");
      copyFileSync(manifest.paths.dyadDb, copy);
      const host = new Database(copy);
      host.pragma("journal_mode = DELETE");
      host.close();
      const args = ["--db", copy, "--app", "1", "--args", '{"query":"plan"}'];
      const run = runCli(["tool", "search_chats", "--attach", ...args]);
      expect(run.status, run.stderr).toBe(0);
      const after = new Database(copy, { readonly: true });
      expect(after.pragma("journal_mode", { simple: true })).toBe("delete");
      after.close();
    } finally {
      t.cleanup();
    }
  });

  it("without --attach answers from a private copy and leaves the host's database as it was", async () => {
    const t = tempDir();
    try {
      const { fresh, copy } = await freshHost(t.dir, 4, 200);
      const objects = () => {
        const db = new Database(copy, { readonly: true });
        const names = db.prepare("SELECT name FROM sqlite_master ORDER BY name").pluck().all();
        db.close();
        return names as string[];
      };
      const hostOnly = objects();
      const before = readFileSync(copy);
      const needle = fresh.needles.find((n) => n.source === "dyad")!;
      const args = ["--app", String(needle.ref.appId), "--args", JSON.stringify({ query: needle.query })];
      const readOnly = runCli(["tool", "search_chats", "--db", copy, ...args]);
      expect(readOnly.status, readOnly.stderr).toBe(0);
      expect(readOnly.stderr.trim()).toBe(
        `recall: read-only: answered from a private copy of ${copy}; --attach installs recall's index in it`,
      );
      expect(JSON.parse(readOnly.stdout).results.map((r: { chat_id: number }) => r.chat_id)).toContain(
        needle.ref.chatId,
      );
      expect(readFileSync(copy).equals(before)).toBe(true);
      expect(objects()).toEqual(hostOnly);
      expect(existsSync(`${copy}.recall-backups`)).toBe(false);
      // --attach is the explicit choice to act as an embedding host: the same answer, from tables
      // recall installs in the host's database.
      const attached = runCli(["tool", "search_chats", "--attach", "--db", copy, ...args]);
      expect([attached.status, attached.stderr]).toEqual([0, ""]);
      expect(attached.stdout).toBe(readOnly.stdout);
      expect(objects().length).toBeGreaterThan(hostOnly.length);
    } finally {
      t.cleanup();
    }
  });
});

/** A Dyad-shaped host database recall has never attached to, copied to `<dir>/host.db`. */
async function freshHost(dir: string, seed: number, messages: number) {
  const fresh = await generateDemoCorpus({
    root: path.join(dir, "fresh"),
    seed,
    sources: { claude: false, codex: false, opencode: false, dyad: { messages } },
  });
  const copy = path.join(dir, "host.db");
  copyFileSync(fresh.paths.dyadDb, copy);
  return { fresh, copy };
}
