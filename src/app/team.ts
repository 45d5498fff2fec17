import type { Config } from "../config/schema.js";
import { RecallError } from "../core/errors.js";
import type { Env } from "../platform/paths.js";
import {
  NO_TEAM,
  teamClient,
  teamError,
  teamPool,
  teamSettings,
  type TeamSettings,
} from "../team/connect.js";
import { pushToTeam, PUSH_BATCH_DEFAULT, type PushProgress, type PushResult } from "../team/push.js";
import {
  assignProject,
  createTeamSchema,
  grantTeam,
  LEAKPROOF_STATEMENT,
  revokeTeam,
  ROLE_NAME,
} from "../team/schema.js";
import type { TeamAccess } from "../tools/team-access.js";
import { openIndexToRead } from "./open-index.js";
import { resolveProject } from "../platform/project.js";

export { PUSH_BATCH_DEFAULT, PUSH_BATCH_MAX, type PushResult } from "../team/push.js";
export { teamSettings, describeUrl } from "../team/connect.js";

/**
 * The team store for the application's surfaces (docs/team.md): the tools' access for
 * `scope: "team"` (a small pool, connected on first use), `recall team push` and the
 * administrator's verbs. Every connection is the configured URL's role: a member's own.
 */

/** The tools' team access and its closer, or null when no team store is configured. */
export function openTeamAccess(
  env: Env,
  config: Config,
): { access: TeamAccess; close: () => Promise<void> } | null {
  const settings = teamSettings(env, config);
  if (!settings) return null;
  const pool = teamPool(settings.url);
  return { access: { db: pool, url: settings.url }, close: () => pool.end().catch(() => undefined) };
}

function required(env: Env, config: Config): TeamSettings {
  const settings = teamSettings(env, config);
  if (!settings) throw new RecallError("Config", NO_TEAM.message.replace(/^scope: /, "team: "));
  return settings;
}

/** `recall team push`: this machine's new documents and forgets, in bounded batches. */
export async function pushTeam(
  home: string,
  env: Env,
  config: Config,
  options: { batch?: number; full?: boolean; onBatch?: (p: PushProgress) => void | Promise<void> },
): Promise<PushResult> {
  const settings = required(env, config);
  const store = await openIndexToRead(home);
  try {
    const client = await teamClient(settings.url);
    try {
      return await pushToTeam(client, store.db, {
        machine: settings.machine,
        localOnly: settings.localOnly,
        batch: options.batch ?? PUSH_BATCH_DEFAULT,
        full: options.full,
        onBatch: options.onBatch,
      });
    } catch (error) {
      throw teamError(error, settings.url);
    } finally {
      await client.end().catch(() => undefined);
    }
  } finally {
    store.close();
  }
}

export type TeamAdminVerb =
  | { verb: "init" }
  | { verb: "grant" | "revoke"; member: string; team: string }
  | { verb: "assign"; project: string; team: string };

/** The administrator's verbs, connected as the URL's role (the tables' owner, not a member). */
export async function teamAdmin(env: Env, config: Config, action: TeamAdminVerb): Promise<string> {
  const settings = required(env, config);
  if ("member" in action && !ROLE_NAME.test(action.member))
    throw new RecallError("Usage", "member: a PostgreSQL role name (lower-case letters, digits, _)");
  const client = await teamClient(settings.url);
  try {
    if (action.verb === "init") {
      const { indexedMatch } = await createTeamSchema(client);
      return indexedMatch
        ? "team schema ready"
        : "team schema ready; searches scan every readable row until a superuser runs, in this database: " +
            `${LEAKPROOF_STATEMENT} (docs/team.md)`;
    }
    if (action.verb === "grant") {
      await grantTeam(client, action.member, action.team);
      return `${action.member} reads and pushes team ${action.team}'s projects`;
    }
    if (action.verb === "revoke") {
      await revokeTeam(client, action.member, action.team);
      return `${action.member} left team ${action.team}`;
    }
    if (action.verb !== "assign") throw new RecallError("Usage", "unknown team verb");
    const project = resolveProject(action.project);
    await assignProject(client, project, action.team);
    return `${project} belongs to team ${action.team}`;
  } catch (error) {
    throw teamError(error, settings.url);
  } finally {
    await client.end().catch(() => undefined);
  }
}
