import type { Queryable } from "./connect.js";

/**
 * The team database's schema, created by its administrator (`recall team init`, connected as the
 * role that will own the tables; not a member). Who may read what is decided here, in SQL, by
 * row-level security, never by filtering rows after a query:
 * - a team owns projects (recall_team_projects) and has members (recall_team_members, PostgreSQL
 *   role names: each member connects with their own credentials);
 * - a member reads the documents of their teams' projects only, and writes (pushes, forgets) only
 *   rows they pushed themselves, only into their teams' projects;
 * - FORCE ROW LEVEL SECURITY applies the policies to the tables' owner too; only a superuser or
 *   a BYPASSRLS role sees past them (never give either to a member).
 * Statements are idempotent, so `recall team init` can run again after an upgrade.
 */

/** The group role every member is granted (`recall team grant`); it holds the table privileges. */
export const MEMBER_ROLE = "recall_member";

/** Every table of the team store: each has row-level security, forced, and nothing for PUBLIC. */
const TABLES = [
  "recall_team_members",
  "recall_team_projects",
  "recall_team_documents",
  "recall_team_tombstones",
  "recall_team_checkpoints",
] as const;

/** The readable projects of the connected role: its teams' projects. */
const READABLE = `(SELECT p.project FROM recall_team_projects p JOIN recall_team_members m ON m.team = p.team
  WHERE m.member = current_user)`;

export const TEAM_SCHEMA = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${MEMBER_ROLE}') THEN CREATE ROLE ${MEMBER_ROLE} NOLOGIN; END IF;
END $$;

CREATE TABLE IF NOT EXISTS recall_team_members (
  member text NOT NULL,
  team text NOT NULL,
  PRIMARY KEY (member, team)
);
CREATE TABLE IF NOT EXISTS recall_team_projects (
  project text PRIMARY KEY,
  team text NOT NULL
);
-- One row per pushed document: its projected, redacted search text and the fields a hit shows.
-- Keyed by (member, hit id): a member's machines share one copy; tsv is built by the pusher
-- (team/tsquery.ts) with the title's positions weighted B and the body's A.
CREATE TABLE IF NOT EXISTS recall_team_documents (
  member text NOT NULL DEFAULT current_user,
  hit_id text NOT NULL,
  machine text NOT NULL,
  kind text NOT NULL,
  agent text NOT NULL,
  at bigint NOT NULL,
  project text NOT NULL,
  session text,
  job text,
  run text,
  message text,
  conversation text,
  cursor text,
  role text NOT NULL,
  title text NOT NULL,
  conversation_title text,
  body text NOT NULL,
  tsv tsvector NOT NULL,
  pushed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member, hit_id)
);
CREATE INDEX IF NOT EXISTS recall_team_documents_tsv ON recall_team_documents USING gin (tsv);
CREATE INDEX IF NOT EXISTS recall_team_documents_project ON recall_team_documents (project, at);
CREATE INDEX IF NOT EXISTS recall_team_documents_conversation ON recall_team_documents (conversation, at, hit_id);
CREATE INDEX IF NOT EXISTS recall_team_documents_session ON recall_team_documents (session);
CREATE INDEX IF NOT EXISTS recall_team_documents_at ON recall_team_documents (at);
CREATE INDEX IF NOT EXISTS recall_team_documents_hit ON recall_team_documents (hit_id);
-- What a member forgot: a later push (from another machine of theirs) never brings it back.
CREATE TABLE IF NOT EXISTS recall_team_tombstones (
  member text NOT NULL DEFAULT current_user,
  hit_id text NOT NULL,
  forgotten_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member, hit_id)
);
-- Per machine: the last local document row and local tombstone pushed (team/push.ts).
CREATE TABLE IF NOT EXISTS recall_team_checkpoints (
  member text NOT NULL DEFAULT current_user,
  machine text NOT NULL,
  documents_through bigint NOT NULL DEFAULT 0,
  tombstones_through bigint NOT NULL DEFAULT 0,
  pushed bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member, machine)
);

${TABLES.map((t) => `ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY;\nALTER TABLE ${t} FORCE ROW LEVEL SECURITY;\n`).join("")}

DROP POLICY IF EXISTS admin_all ON recall_team_members;
DROP POLICY IF EXISTS own_rows ON recall_team_members;
CREATE POLICY admin_all ON recall_team_members TO CURRENT_USER USING (true) WITH CHECK (true);
CREATE POLICY own_rows ON recall_team_members FOR SELECT TO ${MEMBER_ROLE} USING (member = current_user);

DROP POLICY IF EXISTS admin_all ON recall_team_projects;
DROP POLICY IF EXISTS team_rows ON recall_team_projects;
CREATE POLICY admin_all ON recall_team_projects TO CURRENT_USER USING (true) WITH CHECK (true);
CREATE POLICY team_rows ON recall_team_projects FOR SELECT TO ${MEMBER_ROLE}
  USING (team IN (SELECT m.team FROM recall_team_members m WHERE m.member = current_user));

DROP POLICY IF EXISTS read_team ON recall_team_documents;
DROP POLICY IF EXISTS push_own ON recall_team_documents;
DROP POLICY IF EXISTS update_own ON recall_team_documents;
DROP POLICY IF EXISTS delete_own ON recall_team_documents;
CREATE POLICY read_team ON recall_team_documents FOR SELECT TO ${MEMBER_ROLE} USING (project IN ${READABLE});
CREATE POLICY push_own ON recall_team_documents FOR INSERT TO ${MEMBER_ROLE}
  WITH CHECK (member = current_user AND project IN ${READABLE});
CREATE POLICY update_own ON recall_team_documents FOR UPDATE TO ${MEMBER_ROLE}
  USING (member = current_user) WITH CHECK (member = current_user AND project IN ${READABLE});
CREATE POLICY delete_own ON recall_team_documents FOR DELETE TO ${MEMBER_ROLE} USING (member = current_user);

DROP POLICY IF EXISTS own_rows ON recall_team_tombstones;
CREATE POLICY own_rows ON recall_team_tombstones TO ${MEMBER_ROLE}
  USING (member = current_user) WITH CHECK (member = current_user);
DROP POLICY IF EXISTS own_rows ON recall_team_checkpoints;
CREATE POLICY own_rows ON recall_team_checkpoints TO ${MEMBER_ROLE}
  USING (member = current_user) WITH CHECK (member = current_user);

REVOKE ALL ON ${TABLES.join(", ")} FROM PUBLIC;
GRANT SELECT ON recall_team_members, recall_team_projects TO ${MEMBER_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON recall_team_documents, recall_team_tombstones, recall_team_checkpoints
  TO ${MEMBER_ROLE};
`;

/**
 * Row-level security evaluates a policy before any condition of the query that is not LEAKPROOF,
 * so such a condition cannot be an index condition: `tsv @@ q` (ts_match_vq) is not marked
 * LEAKPROOF, and without it every search reads every row the member may read (measured at 765k
 * rows: 418 ms p50 for a rare word, against 12 ms with the GIN index at 76k). ts_match_vq's result
 * and errors depend on the query's structure, never on a row's content beyond whether it matches,
 * so marking it is safe; only a superuser may, and the mark is per database (pg_proc is not shared).
 */
const LEAKPROOF_MATCH = `
DO $$ BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
  END IF;
END $$;`;

/** The statement a superuser runs once per team database when the administrator is not one. */
export const LEAKPROOF_STATEMENT = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF";

/**
 * Creates (or brings up to date) the team schema; run by the administrator. Returns whether
 * full-text matches can use the GIN index under row-level security (see LEAKPROOF_MATCH).
 */
export async function createTeamSchema(db: Queryable): Promise<{ indexedMatch: boolean }> {
  await db.query(TEAM_SCHEMA);
  await db.query(LEAKPROOF_MATCH);
  const row = (
    await db.query<{ leakproof: boolean }>(
      "SELECT proleakproof AS leakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure",
    )
  ).rows[0];
  return { indexedMatch: row?.leakproof === true };
}

/** PostgreSQL identifiers as the admin verbs take them (a role name is quoted into GRANT). */
export const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Makes `member` (an existing login role) a member of `team`. */
export async function grantTeam(db: Queryable, member: string, team: string): Promise<void> {
  await db.query(`GRANT ${MEMBER_ROLE} TO "${member}"`);
  await db.query("INSERT INTO recall_team_members (member, team) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
    member,
    team,
  ]);
}

/** Takes `member` out of `team` (their pushed rows stay; they no longer read the team's projects). */
export async function revokeTeam(db: Queryable, member: string, team: string): Promise<void> {
  await db.query("DELETE FROM recall_team_members WHERE member = $1 AND team = $2", [member, team]);
}

/** Gives `project` (a canonical project path) to `team`: its members push and read it. */
export async function assignProject(db: Queryable, project: string, team: string): Promise<void> {
  await db.query(
    `INSERT INTO recall_team_projects (project, team) VALUES ($1, $2)
     ON CONFLICT (project) DO UPDATE SET team = excluded.team`,
    [project, team],
  );
}
