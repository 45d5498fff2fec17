/**
 * Tool output and written files through the real Claude Code source and search_history (issue
 * #29): the head and tail of a long command output and the words of a file an agent wrote are
 * found, as role `tool` hits ranked below conversation turns; the middle of a long output is not.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool } from "../src/tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../src/tools/search-history.js";
import { claudeProjects, createHarness, type Harness } from "./sources-harness.js";
import { BASE_TIME, claudeBlockLines, claudeLine } from "./sources-lines.js";

const SESSION = "5e55a7e1-0000-4000-8000-00000000b11d";
const CWD = "/nonexistent/recall-test/acme-auth";
/** A 2,000-line build log (about 111 KB) whose closing line is a summary. */
const LOG = [
  ...Array.from(
    { length: 1999 },
    (_, i) => `build-log line ${String(i + 1).padStart(5, "0")} compiling module ok`,
  ),
  "BUILD SUMMARY: 412 modules, 0 errors, finished in 93s",
].join("\n");
const ADR = [
  "# ADR 7: connection pooling",
  "",
  "We put pgbouncer in transaction mode in front of the auth database.",
  "Each service keeps at most twenty connections.",
].join("\n");

const lines = claudeBlockLines(SESSION, CWD);
const toolUse = (uuid: string, at: number, id: string, name: string, input: unknown) =>
  lines.assistant(uuid, at, [{ type: "tool_use", id, name, input }]);
const toolResult = (uuid: string, at: number, id: string, content: string, toolUseResult: unknown) =>
  lines.toolResult(uuid, at, id, content, false, toolUseResult);

describe("tool output and written files in search_history", () => {
  let h: Harness;
  const search = async (query: string) =>
    JSON.parse(
      await runTool(createSearchHistoryTool(h.store.db, h.store.engine), { query, limit: 10 }, {}),
    ) as SearchHistoryOutput;
  const strict = async (query: string) => (await search(query)).hits.filter((x) => x.relaxed !== true);

  beforeAll(async () => {
    h = await createHarness();
    const dir = path.join(claudeProjects(h.home), CWD.replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `${SESSION}.jsonl`),
      claudeLine({
        uuid: "u1",
        session: SESSION,
        cwd: CWD,
        text: "run the build and write the pooling ADR",
        at: BASE_TIME,
      }) +
        toolUse("a1", BASE_TIME + 1, "toolu_1", "Bash", { command: "npm run build" }) +
        toolResult("t1", BASE_TIME + 2, "toolu_1", LOG, { stdout: LOG, stderr: "", interrupted: false }) +
        toolUse("a2", BASE_TIME + 3, "toolu_2", "Write", {
          file_path: `${CWD}/docs/adr-7.md`,
          content: ADR,
        }) +
        toolResult("t2", BASE_TIME + 4, "toolu_2", `File created successfully at: ${CWD}/docs/adr-7.md`, {
          type: "create",
          filePath: `${CWD}/docs/adr-7.md`,
          content: ADR,
          structuredPatch: [],
        }) +
        claudeLine({
          uuid: "u2",
          session: SESSION,
          cwd: CWD,
          text: "keep the pgbouncer pool small",
          at: BASE_TIME + 5,
        }),
    );
    h.index();
  });
  afterAll(() => h?.close());

  it("finds the head and the tail of a long command output as role tool, not its middle", async () => {
    for (const query of ["build-log line 00010", "BUILD SUMMARY 412 modules"]) {
      const hits = await strict(query);
      expect(hits.map((x) => [x.role, x.id])).toEqual([["tool", `transcript:claude:${SESSION}:t1`]]);
      expect(hits[0]!.snippet).toContain(query.split(" ").at(-1));
    }
    expect(await strict("build-log line 01000")).toEqual([]);
  });

  it("finds a word of a file the agent wrote as role tool, below the conversation's own turn", async () => {
    const hits = await strict("pgbouncer");
    expect(hits.map((x) => [x.role, x.id.split(":").at(-1)])).toEqual([
      ["user", "u2"],
      ["tool", "t2"],
    ]);
    expect((await strict("transaction mode")).map((x) => x.role)).toEqual(["tool"]);
  });
});
