/**
 * Who reads what in the team store is decided by PostgreSQL's row-level security, per team's
 * projects, for every connection a member makes with their own credentials: through the real MCP
 * server (search_history and get_conversation with scope "team") and by direct SQL alike.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { createDemoHome, type DemoHome } from "../helpers/demo-home.js";
import { connectMcp, type McpProcess } from "../helpers/mcp.js";
import { createTeamDb, skipTeam, type TeamDb } from "./pg.js";

interface Hit {
  id: string;
  project: string | null;
  conversation: string | null;
  relaxed?: true;
}

async function call(mcp: McpProcess, name: string, args: Record<string, unknown>) {
  const result = (await mcp.client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text: string }[];
  };
  return {
    isError: result.isError === true,
    json: JSON.parse(result.content[0]!.text) as Record<string, unknown>,
  };
}

describe.skipIf(skipTeam)("team store access (row-level security)", () => {
  let alice: DemoHome;
  let bob: DemoHome;
  let team: TeamDb;
  let projects: string[];
  let aliceMcp: McpProcess;
  let bobMcp: McpProcess;
  const asMember = async <T>(member: string, run: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: team.memberUrl(member) });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    [alice, bob] = await Promise.all([createDemoHome({ seed: 21 }), createDemoHome({ seed: 21 })]);
    for (const home of [alice, bob]) expect(runCli(["index"], home.env).status).toBe(0);
    projects = [...alice.manifest.projects];
    team = await createTeamDb(["alice", "bob"]);
    const admin = { ...alice.env, RECALL_TEAM_URL: team.adminUrl };
    for (const args of [
      ["init"],
      ["grant", team.role("alice"), "core"],
      ["grant", team.role("bob"), "infra"],
      ["assign", projects[0]!, "core"],
      ["assign", projects[2]!, "infra"],
    ])
      expect(runCli(["team", ...args], admin).status).toBe(0);
    alice.env.RECALL_TEAM_URL = team.memberUrl("alice");
    bob.env.RECALL_TEAM_URL = team.memberUrl("bob");
    for (const home of [alice, bob]) expect(runCli(["team", "push"], home.env).status).toBe(0);
    [aliceMcp, bobMcp] = await Promise.all([
      connectMcp(alice.env, { name: "alice" }),
      connectMcp(bob.env, { name: "bob" }),
    ]);
  }, 240_000);

  afterAll(async () => {
    await aliceMcp?.client.close();
    await bobMcp?.client.close();
    await team?.drop();
    alice?.cleanup();
    bob?.cleanup();
  });

  it("gives each member their teams' projects only, through search_history", async () => {
    // A needle of alice's project: bob's team search must not find it, alice's must.
    const needle = alice.manifest.needles.find((n) => n.project === projects[0] && n.source === "claude")!;
    expect(needle).toBeDefined();
    const mine = await call(aliceMcp, "search_history", { query: needle.token, scope: "team" });
    expect(mine.isError).toBe(false);
    expect(mine.json.engine).toBe("postgres");
    const hits = mine.json.hits as Hit[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.project === projects[0])).toBe(true);
    const theirs = await call(bobMcp, "search_history", { query: needle.token, scope: "team" });
    expect((theirs.json.hits as Hit[]).filter((h) => h.project === projects[0])).toEqual([]);
    const common = await call(bobMcp, "search_history", {
      query: "database migration",
      scope: "team",
      limit: 50,
    });
    const projectsSeen = new Set((common.json.hits as Hit[]).map((h) => h.project));
    expect([...projectsSeen]).toEqual([projects[2]]);
  });

  it("opens a team conversation for its team only (get_conversation scope team)", async () => {
    const found = await call(aliceMcp, "search_history", { query: "database migration", scope: "team" });
    const hit = (found.json.hits as Hit[])[0]!;
    const window = await call(aliceMcp, "get_conversation", {
      id: hit.conversation,
      around: hit.id,
      limit: 6,
      scope: "team",
    });
    expect(window.isError).toBe(false);
    const records = window.json.records as { id: string }[];
    expect(records.map((r) => r.id)).toContain(hit.id);
    expect(window.json.focus).toBe(hit.id);
    if (window.json.prev) {
      const older = await call(aliceMcp, "get_conversation", {
        id: hit.conversation,
        before: window.json.prev,
        limit: 3,
        scope: "team",
      });
      const olderIds = (older.json.records as { id: string }[]).map((r) => r.id);
      expect(olderIds.length).toBeGreaterThan(0);
      expect(olderIds.some((id) => records.some((r) => r.id === id))).toBe(false);
    }
    // Opened at the conversation's first record: nothing before it.
    const start = await call(aliceMcp, "get_conversation", { id: hit.conversation, limit: 1, scope: "team" });
    const firstId = (start.json.records as { id: string }[])[0]!.id;
    const atStart = await call(aliceMcp, "get_conversation", {
      id: hit.conversation,
      around: firstId,
      limit: 4,
      scope: "team",
    });
    expect(atStart.json.prev).toBeNull();
    expect((atStart.json.records as { id: string }[])[0]!.id).toBe(firstId);
    const first = await call(aliceMcp, "get_conversation", { id: hit.conversation, limit: 2, scope: "team" });
    expect((first.json.records as unknown[]).length).toBe(2);
    if (first.json.next) {
      const next = await call(aliceMcp, "get_conversation", {
        id: hit.conversation,
        limit: 2,
        after: first.json.next,
        scope: "team",
      });
      expect((next.json.records as { id: string }[])[0]!.id).not.toBe(
        (first.json.records as { id: string }[])[1]!.id,
      );
    }
    const denied = await call(bobMcp, "get_conversation", { id: hit.conversation, scope: "team" });
    expect(denied.isError).toBe(true);
    expect(denied.json.error).toMatchObject({ kind: "NotFound" });
  });

  it("narrows by project in SQL as well (filters.project)", async () => {
    const narrowed = await call(aliceMcp, "search_history", {
      query: "migration",
      scope: "team",
      filters: { project: projects[2] },
    });
    expect(narrowed.json.hits).toEqual([]);
  });

  it("holds by direct SQL: a member cannot read, write or unlock another team's rows", async () => {
    await asMember("bob", async (db) => {
      const read = await db.query("SELECT count(*) AS n FROM recall_team_documents WHERE project = $1", [
        projects[0],
      ]);
      expect(Number(read.rows[0].n)).toBe(0);
      const all = await db.query("SELECT DISTINCT project FROM recall_team_documents");
      expect(all.rows.map((r) => r.project)).toEqual([projects[2]]);
      const members = await db.query("SELECT member FROM recall_team_members");
      expect(members.rows.map((r) => r.member)).toEqual([team.role("bob")]);
      const teams = await db.query("SELECT project FROM recall_team_projects");
      expect(teams.rows.map((r) => r.project)).toEqual([projects[2]]);
      expect(
        (await db.query("SELECT * FROM recall_team_checkpoints WHERE member <> current_user")).rowCount,
      ).toBe(0);
      // Writes: into another team's project, over another member's rows.
      await expect(
        db.query(
          `INSERT INTO recall_team_documents (hit_id, machine, kind, agent, at, project, role, title, body, tsv)
           VALUES ('transcript:x', 'm', 'transcript', 'claude', 1, $1, 'user', '', 'x', 'x')`,
          [projects[0]],
        ),
      ).rejects.toMatchObject({ code: "42501" });
      expect(
        (await db.query("UPDATE recall_team_documents SET body = 'x' WHERE project = $1", [projects[0]]))
          .rowCount,
      ).toBe(0);
      expect(
        (await db.query("DELETE FROM recall_team_documents WHERE member <> current_user")).rowCount,
      ).toBe(0);
      await expect(
        db.query("INSERT INTO recall_team_members (member, team) VALUES (current_user, 'core')"),
      ).rejects.toMatchObject({
        code: "42501",
      });
      await expect(
        db.query("ALTER TABLE recall_team_documents DISABLE ROW LEVEL SECURITY"),
      ).rejects.toMatchObject({
        code: "42501",
      });
      await db.query("SET row_security = off");
      await expect(db.query("SELECT count(*) FROM recall_team_documents")).rejects.toMatchObject({
        code: "42501",
      });
    });
    // Under the policies a full-text match still uses the GIN index (ts_match_vq is LEAKPROOF: team/schema.ts).
    // (A table this small is read whole by cost; with sequential scans off, only a usable index avoids one.)
    const plan = await asMember("alice", async (db) => {
      await db.query("SET enable_seqscan = off");
      return db.query("EXPLAIN SELECT hit_id FROM recall_team_documents WHERE tsv @@ $1::tsquery", [
        "'migration'",
      ]);
    });
    expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("recall_team_documents_tsv");
    // Alice still reads all of hers.
    const hers = await asMember("alice", (db) =>
      db.query("SELECT DISTINCT project FROM recall_team_documents"),
    );
    expect(hers.rows.map((r) => r.project)).toEqual([projects[0]]);
  });
});
