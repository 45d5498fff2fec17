/**
 * The audit log is best effort (issue #30, item 4): a write that fails (a folder in the log's
 * place, a full disk: a link to /dev/full) is counted and reported by `recall status`, and the
 * call it describes is answered all the same — CLI search and conversation, MCP search_history.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcp } from "./helpers/mcp.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SESSION = "4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f";

describe("a failing audit write", () => {
  let h: TranscriptHome;
  afterEach(() => h?.cleanup());

  it("never fails the call it describes, and is counted in recall status", async () => {
    h = createTranscriptHome();
    writeFileSync(
      path.join(h.claudeDir, `${SESSION}.jsonl`),
      claudeLine({ uuid: "a1", session: SESSION, text: "the audited capybara answer", at: BASE_TIME }),
    );
    expect(h.run("index").status).toBe(0);
    const audit = path.join(h.recallHome, "audit.jsonl");

    for (const [breakIt, code] of [
      [() => mkdirSync(audit), "EISDIR"],
      [() => symlinkSync("/dev/full", audit), "ENOSPC"],
    ] as const) {
      rmSync(audit, { recursive: true, force: true });
      breakIt();
      const search = h.run("search", "capybara", "--json");
      expect(search.stderr).toBe("");
      expect(search.status).toBe(0);
      expect(JSON.parse(search.stdout).hits).toHaveLength(1);
      const read = h.run("conversation", `claude:${SESSION}`);
      expect(read.status).toBe(0);
      expect(read.stdout).toMatch(/capybara/);

      const mcp = await connectMcp(h.env, { name: "audit-test" });
      try {
        const result = (await mcp.client.callTool({
          name: "search_history",
          arguments: { query: "capybara" },
        })) as { isError?: boolean; content: { text: string }[] };
        expect(result.isError).toBeFalsy();
        expect(JSON.parse(result.content[0]!.text).hits).toHaveLength(1);
      } finally {
        await mcp.client.close();
      }

      const status = h.run("status", "--json");
      expect(status.status).toBe(0);
      const figures = JSON.parse(status.stdout) as {
        audit: { failures: { count: number; lastError: string } };
      };
      expect(figures.audit.failures.lastError).toBe(code);
      expect(figures.audit.failures.count).toBeGreaterThanOrEqual(code === "EISDIR" ? 3 : 6);
      expect(h.run("status").stdout).toMatch(new RegExp(`audit log: \\d+ failed writes \\(last ${code}\\)`));
    }
  });
});
