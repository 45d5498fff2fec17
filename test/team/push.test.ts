/**
 * `recall team push` against a real PostgreSQL, as real CLI processes: a push killed midway
 * resumes from its checkpoint, a second push sends nothing, `--full` changes nothing (upserts
 * keyed by hit id), local-only and unassigned projects and tool output never leave the machine,
 * and `recall forget` reaches the team store as deletes with tombstones that keep a second
 * machine of the same member from bringing the forgotten rows back.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { createDemoHome, type DemoHome } from "../helpers/demo-home.js";
import type { PushResult } from "../../src/team/push.js";
import { createTeamDb, skipTeam, type TeamDb } from "./pg.js";

describe.skipIf(skipTeam)("recall team push", () => {
  let laptop: DemoHome;
  let desktop: DemoHome;
  let team: TeamDb;
  let projects: string[];
  const count = async (where = "true", values: unknown[] = []) =>
    Number(
      (await team.query(`SELECT count(*) AS n FROM recall_team_documents WHERE ${where}`, values)).rows[0].n,
    );
  const memberEnv = (home: DemoHome, machine: string) => ({
    ...home.env,
    RECALL_TEAM_URL: team.memberUrl("alice"),
    RECALL_TEAM_MACHINE: machine,
  });
  const push = (home: DemoHome, machine: string, ...flags: string[]) => {
    const r = runCli(["team", "push", "--json", ...flags], memberEnv(home, machine));
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as PushResult;
  };
  /** What a push of the laptop may send: its first project's documents but tool output. */
  const expected = (home: DemoHome) => {
    const db = new Database(path.join(home.env.RECALL_HOME!, "history.db"), { readonly: true });
    try {
      return (
        db
          .prepare("SELECT count(*) AS n FROM recall_documents WHERE project = ? AND role <> 'tool'")
          .get(projects[0]) as { n: number }
      ).n;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    [laptop, desktop] = await Promise.all([createDemoHome({ seed: 11 }), createDemoHome({ seed: 11 })]);
    for (const home of [laptop, desktop]) expect(runCli(["index"], home.env).status).toBe(0);
    projects = [...laptop.manifest.projects];
    team = await createTeamDb(["alice", "bob"]);
    const admin = { ...laptop.env, RECALL_TEAM_URL: team.adminUrl };
    expect(runCli(["team", "init"], admin).status).toBe(0);
    expect(runCli(["team", "grant", team.role("alice"), "core"], admin).status).toBe(0);
    expect(runCli(["team", "grant", team.role("bob"), "infra"], admin).status).toBe(0);
    expect(runCli(["team", "assign", projects[0]!, "core"], admin).status).toBe(0);
    expect(runCli(["team", "assign", projects[1]!, "core"], admin).status).toBe(0);
    expect(runCli(["team", "assign", projects[2]!, "infra"], admin).status).toBe(0);
    // The second project is the team's, but this member keeps it on their machines.
    for (const home of [laptop, desktop])
      writeFileSync(
        path.join(home.env.RECALL_HOME!, "config.json"),
        JSON.stringify({ team: { localOnly: [projects[1]] } }),
      );
  }, 240_000);

  afterAll(async () => {
    await team?.drop();
    laptop?.cleanup();
    desktop?.cleanup();
  });

  it("resumes a push killed midway from its checkpoint, without duplicates", async () => {
    const want = expected(laptop);
    expect(want).toBeGreaterThan(50);
    const child = spawn(process.execPath, [CLI, "team", "push", "--batch", "20"], {
      env: { ...process.env, ...memberEnv(laptop, "laptop"), RECALL_TEAM_PUSH_PAUSE_MS: "200" },
      stdio: "ignore",
    });
    const through = async () =>
      Number(
        (
          await team.query(
            "SELECT documents_through AS t FROM recall_team_checkpoints WHERE machine = 'laptop'",
          )
        ).rows[0]?.t ?? 0,
      );
    const deadline = Date.now() + 30_000;
    while ((await through()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const atKill = await count();
    const checkpoint = await through();
    expect(checkpoint).toBeGreaterThan(0);
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(want);

    const resumed = push(laptop, "laptop", "--batch", "20");
    expect(await count()).toBe(want);
    // Resumed after the checkpoint: the rows committed before the kill are not sent again.
    expect(resumed.pushed).toBe(want - atKill);
    expect(await count("project <> $1", [projects[0]])).toBe(0);
    expect(await count("role = 'tool'")).toBe(0);
  });

  it("sends nothing new on a second push, and nothing twice with --full", async () => {
    const want = expected(laptop);
    const again = push(laptop, "laptop");
    expect(again).toMatchObject({ pushed: 0, batches: 0, forgotten: 0 });
    const full = push(laptop, "laptop", "--full");
    expect(full.pushed).toBe(want);
    expect(full.withheld).toBeGreaterThan(0);
    expect(await count()).toBe(want);
    // One copy per hit for the member, whichever machine pushed it.
    const desk = push(desktop, "desktop");
    expect(desk.pushed).toBe(want);
    expect(await count()).toBe(want);
  });

  it("never pushes a local-only project, another team's project or raw text", async () => {
    expect(await count("project = $1", [projects[1]])).toBe(0);
    expect(await count("project = $1", [projects[2]])).toBe(0);
    // Only the projected search text: no raw chunk or record tables exist in the team store.
    const tables = (
      await team.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    ).rows.map((r) => r.tablename);
    expect(tables).toEqual([
      "recall_team_checkpoints",
      "recall_team_documents",
      "recall_team_members",
      "recall_team_projects",
      "recall_team_tombstones",
    ]);
  });

  it("propagates recall forget as deletes with tombstones", async () => {
    const session = (
      await team.query("SELECT session FROM recall_team_documents WHERE session IS NOT NULL LIMIT 1")
    ).rows[0].session as string;
    expect(await count("session = $1", [session])).toBeGreaterThan(0);
    const total = await count();
    const forgot = runCli(["forget", "--session", session, "--yes"], laptop.env);
    expect(forgot.status).toBe(0);
    const pushed = push(laptop, "laptop");
    // The session and what went with it locally (its sub-agents' conversations).
    expect(pushed.forgotten).toBeGreaterThan(0);
    expect(await count()).toBe(total - pushed.forgotten);
    expect(await count("session = $1", [session])).toBe(0);
    expect(await count()).toBe(expected(laptop));
    const tombstones = Number(
      (await team.query("SELECT count(*) AS n FROM recall_team_tombstones")).rows[0].n,
    );
    expect(tombstones).toBe(pushed.forgotten);
    // The desktop still holds the session; its full push does not bring it back.
    push(desktop, "desktop", "--full");
    expect(await count("session = $1", [session])).toBe(0);
    // The next push forwards no tombstone twice.
    expect(push(laptop, "laptop").forgotten).toBe(0);
  });
});
