/**
 * Random bytes over pages in the middle of history.db (the FTS5 index's and the documents'):
 * every surface that meets the damage says so the same way — search, status --check, MCP and
 * HTTP — instead of "internal error: fts5: corruption" or an MCP "Internal" (issue #30, item 7).
 */
import Database from "better-sqlite3";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { httpRequest, login, startServe, type ServeProcess } from "./helpers/http.js";
import { connectMcp } from "./helpers/mcp.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SESSION = "6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b";

/** Overwrites every page of the named tables with bytes from a seeded generator. */
function scribble(file: string, tables: string[], seed: number): number {
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pages = db
    .prepare(`SELECT pageno FROM dbstat WHERE name IN (SELECT value FROM json_each(?)) AND pagetype = 'leaf'`)
    .pluck()
    .all(JSON.stringify(tables)) as number[];
  db.close();
  let x = seed;
  const noise = Buffer.alloc(pageSize);
  const fd = openSync(file, "r+");
  for (const page of pages) {
    for (let i = 0; i < pageSize; i++) noise[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    writeSync(fd, noise, 0, pageSize, (page - 1) * pageSize);
  }
  closeSync(fd);
  return pages.length;
}

describe("a damaged index", () => {
  let h: TranscriptHome;
  let serve: ServeProcess | null = null;
  afterEach(async () => {
    await serve?.stop();
    serve = null;
    h?.cleanup();
  });

  it("gives the same clear message and exit code from search, status --check, MCP and HTTP", async () => {
    h = createTranscriptHome();
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++)
      lines.push(
        claudeLine({
          uuid: `d-${i}`,
          session: SESSION,
          text: `entry ${i} of the pangolin ledger`,
          at: BASE_TIME + i,
        }),
      );
    writeFileSync(path.join(h.claudeDir, `${SESSION}.jsonl`), lines.join(""));
    expect(h.run("index").status).toBe(0);
    const file = path.join(h.recallHome, "history.db");
    expect(h.run("status", "--check").status).toBe(0);
    expect(scribble(file, ["recall_fts_data", "recall_record_rows"], 30)).toBeGreaterThan(10);

    const message = new RegExp(
      `^recall: ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is damaged \\(SQLITE_CORRUPT\\w*\\); move it aside and run \`recall index\` to build a new index\n$`,
    );
    const search = h.run("search", "pangolin ledger");
    expect(search.stderr).toMatch(message);
    expect(search.status).toBe(1);
    const check = h.run("status", "--check");
    expect(check.stderr).toMatch(message);
    expect(check.status).toBe(1);

    const mcp = await connectMcp(h.env, { name: "damage-test" });
    try {
      const result = (await mcp.client.callTool({
        name: "search_history",
        arguments: { query: "pangolin ledger" },
      })) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      const error = (JSON.parse(result.content[0]!.text) as { error: { kind: string; message: string } })
        .error;
      expect(error.kind).toBe("Unavailable");
      expect(`recall: ${error.message}\n`).toMatch(message);
    } finally {
      await mcp.client.close();
    }

    serve = await startServe(h.env);
    const cookie = await login(serve.loginUrl);
    const answer = await httpRequest(serve.port, "/api/search?q=pangolin%20ledger", {
      headers: { Cookie: cookie },
    });
    expect(answer.status).toBe(503);
    expect(`recall: ${(JSON.parse(answer.body) as { error: string }).error}\n`).toMatch(message);
  });
});
