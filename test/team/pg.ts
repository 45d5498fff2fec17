/**
 * The team tests' real PostgreSQL: RECALL_TEST_PG_URL names a superuser connection (.ci/run
 * installs Debian's postgresql, starts it and creates one). Each test file gets a database of its
 * own and member roles of its own (roles are cluster-wide: named with a random suffix), dropped
 * afterwards. Without the URL the team tests are skipped with a note; in CI
 * (RECALL_REQUIRE_POSTGRES=1 or CI=true) they fail instead.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { urlOnDatabase } from "../../src/team/connect.js";

export const PG_URL = process.env.RECALL_TEST_PG_URL;
export const pgRequired = process.env.RECALL_REQUIRE_POSTGRES === "1" || process.env.CI === "true";
export const skipTeam = !PG_URL && !pgRequired;
if (skipTeam)
  console.warn(
    "[skip] RECALL_TEST_PG_URL is unset: the team store tests are skipped (.ci/run starts PostgreSQL).",
  );

export interface TeamDb {
  /** The administrator's URL (the superuser, on this database). */
  adminUrl: string;
  /** A member's own URL (their role and password). */
  memberUrl: (member: string) => string;
  /** Member role names by short name ("alice" → "alice_3f9a…"). */
  role: (member: string) => string;
  /** A query as the superuser on this database. */
  query: (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;
  drop: () => Promise<void>;
}

export async function createTeamDb(members: readonly string[]): Promise<TeamDb> {
  if (!PG_URL) throw new Error("RECALL_TEST_PG_URL is required (RECALL_REQUIRE_POSTGRES=1)");
  const suffix = randomBytes(4).toString("hex");
  const database = `recall_team_${suffix}`;
  const root = new pg.Client({ connectionString: PG_URL });
  await root.connect();
  await root.query(`CREATE DATABASE ${database}`);
  try {
    await root.query("CREATE ROLE recall_member NOLOGIN");
  } catch (error) {
    // Another test file created it first (roles are cluster-wide).
    if ((error as { code?: string }).code !== "42710" && (error as { code?: string }).code !== "23505")
      throw error;
  }
  const role = (m: string) => `${m}_${suffix}`;
  for (const m of members) await root.query(`CREATE ROLE ${role(m)} LOGIN PASSWORD '${role(m)}-pw'`);
  await root.end();
  const adminUrl = urlOnDatabase(PG_URL, database);
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1 });
  return {
    adminUrl,
    memberUrl: (m) => urlOnDatabase(PG_URL, database, role(m), `${role(m)}-pw`),
    role,
    query: (sql, values) => admin.query(sql, values),
    async drop() {
      await admin.end();
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      for (const m of members) await c.query(`DROP ROLE IF EXISTS ${role(m)}`);
      await c.end();
    },
  };
}
