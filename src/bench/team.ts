import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import type { Engine } from "../store/fts-probe.js";
import type { Db } from "../store/open.js";
import { urlOnDatabase } from "../team/connect.js";
import { pushToTeam } from "../team/push.js";
import { assignProject, createTeamSchema, grantTeam, MEMBER_ROLE } from "../team/schema.js";
import { runTool } from "../tools/run.js";
import { createSearchHistoryTool, type SearchHistoryOutput } from "../tools/search-history.js";
import { distribution, fig, round, type Distribution, type Figure } from "./measure.js";
import type { BenchQuery, QueryClass } from "./queries.js";

/**
 * `npm run bench -- --team`: the team store (PostgreSQL) beside the local index, on the same
 * corpus. Needs a URL of a role that may create databases and roles (RECALL_TEAM_URL or
 * RECALL_TEST_PG_URL): the bench makes a database and one member role of its own, pushes the
 * whole local index as that member (their own credentials, so row-level security is in every
 * query measured) and drops both afterwards.
 *
 * Parity: for each query, the share of the local top 10 the team top 10 also holds. Local hits
 * of tool output are left out of the local list first, since tool output is never pushed.
 */

export interface TeamClassFigures {
  local: Distribution;
  team: Distribution;
  /** Mean share of the local top 10 (tool output left out) also in the team top 10. */
  overlap: Figure;
  /** Queries whose team top 10 held every local top-10 hit. */
  identical: Figure;
}

export interface TeamBenchFigures {
  documents: Figure;
  pushRate: Figure;
  pushSeconds: Figure;
  /** VACUUM ANALYZE after the push (statistics for the planner). */
  analyzeSeconds: Figure;
  tableBytes: Figure;
  indexBytes: Figure;
  classes: Partial<Record<QueryClass, TeamClassFigures>>;
}

/** The URL the bench (and the parity test) may create a database and a role with, or null. */
export function benchTeamUrl(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.RECALL_TEAM_URL?.trim() || env.RECALL_TEST_PG_URL?.trim() || null;
}

/** A throwaway team store: a database, the schema, one member granted every project of `db`. */
export interface ScratchTeam {
  memberUrl: string;
  admin: pg.Client;
  member: pg.Client;
  drop: () => Promise<void>;
}

export async function scratchTeam(url: string, db: Db): Promise<ScratchTeam> {
  const suffix = randomBytes(4).toString("hex");
  const database = `recall_bench_${suffix}`;
  const role = `recall_bench_${suffix}`;
  const root = new pg.Client({ connectionString: url });
  await root.connect();
  await root.query(`CREATE DATABASE ${database}`);
  await root.query(`CREATE ROLE ${role} LOGIN PASSWORD '${role}'`);
  await root.query(
    `DO $$ BEGIN CREATE ROLE ${MEMBER_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
  );
  const admin = new pg.Client({ connectionString: urlOnDatabase(url, database) });
  await admin.connect();
  await createTeamSchema(admin);
  await grantTeam(admin, role, "bench");
  const projects = db
    .prepare("SELECT DISTINCT project FROM recall_documents WHERE project IS NOT NULL")
    .pluck()
    .all() as string[];
  for (const project of projects) await assignProject(admin, project, "bench");
  const memberUrl = urlOnDatabase(url, database, role, role);
  const member = new pg.Client({ connectionString: memberUrl });
  await member.connect();
  return {
    memberUrl,
    admin,
    member,
    async drop() {
      await member.end().catch(() => undefined);
      await admin.end().catch(() => undefined);
      await root.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await root.query(`DROP ROLE IF EXISTS ${role}`);
      await root.end();
    },
  };
}

/** The share of `local` (tool output left out, at most 10) that `team` holds; null when none. */
export function topOverlap(local: SearchHistoryOutput, team: SearchHistoryOutput): number | null {
  const wanted = local.hits.filter((h) => h.role !== "tool").slice(0, 10);
  if (wanted.length === 0) return team.hits.length === 0 ? 1 : null;
  const got = new Set(team.hits.map((h) => h.id));
  return wanted.filter((h) => got.has(h.id)).length / wanted.length;
}

export interface ParityRun {
  local: number[];
  team: number[];
  overlaps: number[];
}

/** Each query locally and against the team store, through the search_history tool both times. */
export async function runParity(
  db: Db,
  engine: Engine,
  member: pg.Client,
  memberUrl: string,
  list: readonly BenchQuery[],
): Promise<ParityRun> {
  const tool = createSearchHistoryTool(db, engine, { team: { db: member, url: memberUrl } });
  const search = async (q: BenchQuery, scope: "local" | "team") => {
    const args = { query: q.text, limit: 10, scope, ...(q.filters ? { filters: q.filters } : {}) };
    const t0 = performance.now();
    const out = JSON.parse(await runTool(tool, args, {})) as SearchHistoryOutput;
    return { ms: performance.now() - t0, out };
  };
  const run: ParityRun = { local: [], team: [], overlaps: [] };
  for (const q of list) {
    const local = await search(q, "local");
    const team = await search(q, "team");
    run.local.push(local.ms);
    run.team.push(team.ms);
    const overlap = topOverlap(local.out, team.out);
    if (overlap !== null) run.overlaps.push(overlap);
  }
  return run;
}

async function relationBytes(admin: pg.Client): Promise<{ table: number; indexes: number }> {
  const row = (
    await admin.query<{ t: string; i: string }>(
      `SELECT pg_table_size('recall_team_documents') AS t, pg_indexes_size('recall_team_documents') AS i`,
    )
  ).rows[0]!;
  return { table: Number(row.t), indexes: Number(row.i) };
}

/** Push the whole local index as one member, then every query class locally and in the team store. */
export async function benchTeam(
  db: Db,
  engine: Engine,
  queries: Partial<Record<QueryClass, BenchQuery[]>>,
  url: string,
  step: (msg: string) => void,
): Promise<TeamBenchFigures> {
  const team = await scratchTeam(url, db);
  try {
    step("team: pushing the index to PostgreSQL");
    const pushed = await pushToTeam(team.member, db, { machine: "bench", localOnly: [], batch: 5_000 });
    step(`team: pushed ${pushed.pushed} documents in ${(pushed.ms / 1000).toFixed(1)} s; VACUUM ANALYZE`);
    const t0 = performance.now();
    await team.admin.query("VACUUM ANALYZE recall_team_documents");
    const analyzeMs = performance.now() - t0;
    const bytes = await relationBytes(team.admin);
    const classes: Partial<Record<QueryClass, TeamClassFigures>> = {};
    for (const cls of ["rare", "mixed", "common", "identifier", "filtered"] as const) {
      const list = queries[cls] ?? [];
      if (list.length === 0) continue;
      step(`team: ${cls} queries, local and team (${list.length})`);
      const run = await runParity(db, engine, team.member, team.memberUrl, list);
      const mean = run.overlaps.reduce((a, b) => a + b, 0) / Math.max(1, run.overlaps.length);
      classes[cls] = {
        local: distribution(run.local),
        team: distribution(run.team),
        overlap: fig(round(mean, 3), "share of the local top 10"),
        identical: fig(run.overlaps.filter((o) => o === 1).length, `of ${run.overlaps.length} queries`),
      };
    }
    return {
      documents: fig(pushed.pushed, "documents"),
      pushRate: fig(Math.round(pushed.pushed / (pushed.ms / 1000)), "documents/s"),
      pushSeconds: fig(round(pushed.ms / 1000, 1), "s"),
      analyzeSeconds: fig(round(analyzeMs / 1000, 1), "s"),
      tableBytes: fig(bytes.table, "bytes"),
      indexBytes: fig(bytes.indexes, "bytes"),
      classes,
    };
  } finally {
    await team.drop();
  }
}

/** The team figures as a Markdown section. */
export function renderTeam(label: string, t: TeamBenchFigures): string {
  const v = (f: Figure) => (f.value === null ? "–" : f.value.toLocaleString("en-US"));
  const MiB = 2 ** 20;
  const lines = [
    `### Team store (PostgreSQL), ${label}`,
    "",
    `Pushed ${v(t.documents)} documents in ${v(t.pushSeconds)} s (${v(t.pushRate)} documents/s, one member, batches of ` +
      `5,000); VACUUM ANALYZE ${v(t.analyzeSeconds)} s; table ${((t.tableBytes.value ?? 0) / MiB).toFixed(0)} MiB, ` +
      `indexes ${((t.indexBytes.value ?? 0) / MiB).toFixed(0)} MiB.`,
    "",
    "| class | local p50 / p95 ms | team p50 / p95 ms | top-10 overlap | identical top 10 |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [cls, c] of Object.entries(t.classes)) {
    lines.push(
      `| ${cls} | ${v(c.local.p50)} / ${v(c.local.p95)} | ${v(c.team.p50)} / ${v(c.team.p95)} | ${v(c.overlap)} | ` +
        `${v(c.identical)} ${c.identical.unit} |`,
    );
  }
  return lines.join("\n");
}
