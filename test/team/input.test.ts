/**
 * Bad input to the team parts: a clear error naming the field (the tools' zod validation), and on
 * the CLI an exit code with one line on stderr, never a stack trace or the URL's password.
 * `scope: "team"` without a team store is an error, not an empty result.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { createDemoHome, type DemoHome } from "../helpers/demo-home.js";
import { connectMcp, type McpProcess } from "../helpers/mcp.js";
import { createTeamDb, PG_URL, skipTeam, type TeamDb } from "./pg.js";

async function callError(mcp: McpProcess, name: string, args: Record<string, unknown>) {
  const result = (await mcp.client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text: string }[];
  };
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[0]!.text) as { error: { kind: string; message: string } }).error;
}

/** One line on stderr, no stack frame. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe("team input without a team store", () => {
  let home: DemoHome;
  let mcp: McpProcess;
  beforeAll(async () => {
    home = await createDemoHome({ seed: 3, messages: 200 });
    expect(runCli(["index"], home.env).status).toBe(0);
    mcp = await connectMcp({ ...home.env, RECALL_TEAM_URL: "" }, { name: "no-team" });
  }, 120_000);
  afterAll(async () => {
    await mcp?.client.close();
    home?.cleanup();
  });

  it("names the scope field for a value it does not take", async () => {
    const error = await callError(mcp, "search_history", { query: "migration", scope: "teams" });
    expect(error.kind).toBe("Validation");
    expect(error.message).toMatch(/^scope: /);
    const conv = await callError(mcp, "get_conversation", { id: "x", scope: 1 });
    expect(conv.message).toMatch(/^scope: /);
  });

  it("answers scope team without a team store with an error, not an empty result", async () => {
    const error = await callError(mcp, "search_history", { query: "migration", scope: "team" });
    expect(error.kind).toBe("Unavailable");
    expect(error.message).toContain("no team store is configured");
    const conv = await callError(mcp, "get_conversation", { id: "x", scope: "team" });
    expect(conv.message).toContain("no team store is configured");
  });

  it("says plainly when recall team needs a verb", () => {
    const bare = runCli(["team"], home.env);
    expect(bare.status).toBe(2);
    expect(oneLine(bare.stderr)).toContain("recall team needs a verb: push, init, grant, revoke or assign");
    const unknown = runCli(["team", "pull"], home.env);
    expect(unknown.status).toBe(2);
    expect(oneLine(unknown.stderr)).toContain("unknown team verb 'pull'");
  });

  it("fails recall team push without a URL, a bad flag or a bad config, in one line", () => {
    const none = runCli(["team", "push"], { ...home.env, RECALL_TEAM_URL: "" });
    expect(none.status).toBe(1);
    expect(oneLine(none.stderr)).toContain("RECALL_TEAM_URL");
    const batch = runCli(["team", "push", "--batch", "0"], home.env);
    expect(batch.status).toBe(2);
    expect(oneLine(batch.stderr)).toContain("--batch");
    const grant = runCli(["team", "grant", "Robert'); DROP TABLE x;--", "core"], {
      ...home.env,
      RECALL_TEAM_URL: "postgres://127.0.0.1:1/x",
    });
    expect(grant.status).toBe(2);
    expect(oneLine(grant.stderr)).toContain("member");
    writeFileSync(path.join(home.env.RECALL_HOME!, "config.json"), JSON.stringify({ team: { urll: "x" } }));
    const config = runCli(["team", "push"], home.env);
    expect(config.status).toBe(1);
    expect(oneLine(config.stderr)).toContain("team.urll");
    writeFileSync(path.join(home.env.RECALL_HOME!, "config.json"), "{}");
  });

  it("reports an unreachable or malformed team URL in one line, without its password", () => {
    const down = runCli(["team", "push"], {
      ...home.env,
      RECALL_TEAM_URL: "postgres://u:s3cret@127.0.0.1:1/db",
    });
    expect(down.status).toBe(1);
    const line = oneLine(down.stderr);
    expect(line).toContain("cannot connect");
    expect(line).not.toContain("s3cret");
    const bad = runCli(["team", "push"], { ...home.env, RECALL_TEAM_URL: "not a url" });
    expect(bad.status).toBe(1);
    oneLine(bad.stderr);
  });
});

describe.skipIf(skipTeam)("team input against a real PostgreSQL", () => {
  let home: DemoHome;
  let team: TeamDb;
  beforeAll(async () => {
    home = await createDemoHome({ seed: 4, messages: 200 });
    expect(runCli(["index"], home.env).status).toBe(0);
    team = await createTeamDb(["carol"]);
    expect(runCli(["team", "init"], { ...home.env, RECALL_TEAM_URL: team.adminUrl }).status).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await team?.drop();
    home?.cleanup();
  });

  it("says authentication failed for a wrong password, and never prints it", () => {
    const url = new URL(team.memberUrl("carol"));
    url.password = "wrong-pw";
    const r = runCli(["team", "push"], { ...home.env, RECALL_TEAM_URL: url.toString() });
    expect(r.status).toBe(1);
    const line = oneLine(r.stderr);
    expect(line).toContain("authentication failed");
    expect(line).not.toContain("wrong-pw");
  });

  it("sets up as the documented non-superuser administrator, and says what a superuser must add", async () => {
    const owner = `${team.role("carol")}_admin`;
    const database = `${owner}_db`;
    const url = new URL(PG_URL!);
    const pg = (await import("pg")).default;
    const root = new pg.Client({ connectionString: PG_URL });
    await root.connect();
    try {
      await root.query(`CREATE ROLE ${owner} LOGIN CREATEROLE PASSWORD 'admin-pw'`);
      await root.query(`CREATE DATABASE ${database} OWNER ${owner}`);
      await root.query(`CREATE ROLE ${owner}_m LOGIN`);
      url.username = owner;
      url.password = "admin-pw";
      url.pathname = `/${database}`;
      const env = { ...home.env, RECALL_TEAM_URL: url.toString() };
      const init = runCli(["team", "init"], env);
      expect(init.status).toBe(0);
      expect(init.stdout).toContain(
        "until a superuser runs, in this database: ALTER FUNCTION pg_catalog.ts_match_vq",
      );
      const grant = runCli(["team", "grant", `${owner}_m`, "core"], env);
      expect([grant.status, grant.stderr]).toEqual([0, ""]);
    } finally {
      await root.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await root.query(`DROP OWNED BY ${owner}`).catch(() => undefined);
      await root.query(`DROP ROLE IF EXISTS ${owner}_m`);
      await root.query(`DROP ROLE IF EXISTS ${owner}`);
      await root.end();
    }
  });

  it("refuses the administrator's verbs to a member", () => {
    const r = runCli(["team", "assign", "/srv/x", "core"], {
      ...home.env,
      RECALL_TEAM_URL: team.memberUrl("carol"),
    });
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toContain("permission denied");
  });

  it("pushes nothing for a member of no team, and says so", () => {
    const r = runCli(["team", "push", "--json"], { ...home.env, RECALL_TEAM_URL: team.memberUrl("carol") });
    // carol is not granted recall_member: the store refuses her outright.
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toContain("permission denied");
    expect(PG_URL).toBeDefined();
  });

  it("rejects a team cursor that is not one, naming the field", async () => {
    const admin = { ...home.env, RECALL_TEAM_URL: team.adminUrl };
    expect(runCli(["team", "grant", team.role("carol"), "core"], admin).status).toBe(0);
    const mcp = await connectMcp(
      { ...home.env, RECALL_TEAM_URL: team.memberUrl("carol") },
      { name: "carol" },
    );
    try {
      await team.query(
        `INSERT INTO recall_team_projects (project, team) VALUES ('/p', 'core');
         INSERT INTO recall_team_documents (member, hit_id, machine, kind, agent, at, project, conversation, role, title, body, tsv)
         VALUES ('${team.role("carol")}', 'transcript:c1', 'm', 'transcript', 'claude', 1, '/p', 'c1', 'user', '', 'hello', 'hello')`,
      );
      const error = await callError(mcp, "get_conversation", { id: "c1", after: "bm9wZQ", scope: "team" });
      expect(error).toEqual({ kind: "Validation", message: "after: not a team conversation cursor" });
      const empty = (await mcp.client.callTool({
        name: "search_history",
        arguments: { query: "nothing-like-this-anywhere", scope: "team" },
      })) as { isError?: boolean; content: { text: string }[] };
      expect(empty.isError).toBeFalsy();
      expect(JSON.parse(empty.content[0]!.text)).toMatchObject({ engine: "postgres", hits: [] });
    } finally {
      await mcp.client.close();
    }
  });
});
