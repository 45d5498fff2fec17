import os from "node:os";
import type pg from "pg";
import { RecallError } from "../core/errors.js";
import type { Env } from "../platform/paths.js";
import { resolveProject } from "../platform/project.js";
import type { Config } from "../config/schema.js";

/** What both a client and a pool answer: one statement with positional parameters. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** Where the team store is and what this machine may publish (config.json `team`, env overrides). */
export interface TeamSettings {
  url: string;
  /** This machine's name in the store's checkpoints (RECALL_TEAM_MACHINE, team.machine, host name). */
  machine: string;
  /** Canonical paths of projects that stay on this machine (team.localOnly): never pushed. */
  localOnly: string[];
}

/** The team settings, or null when no team store is configured. */
export function teamSettings(env: Env, config: Config): TeamSettings | null {
  const url = env.RECALL_TEAM_URL?.trim() || config.team?.url;
  if (!url) return null;
  return {
    url,
    machine: env.RECALL_TEAM_MACHINE?.trim() || config.team?.machine || os.hostname(),
    localOnly: (config.team?.localOnly ?? []).map(resolveProject),
  };
}

/** The error of `scope: "team"` (or `recall team`) without a team store. */
export const NO_TEAM = new RecallError(
  "Unavailable",
  "scope: no team store is configured (set RECALL_TEAM_URL or team.url in config.json; see docs/team.md)",
);

/** The same server's URL for another database, and optionally as another role. */
export function urlOnDatabase(url: string, database: string, user?: string, password?: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (user !== undefined) u.username = user;
  if (password !== undefined) u.password = password;
  return u.toString();
}

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.username ? `${u.username}@` : ""}${u.host}${u.pathname}`;
  } catch {
    return "the configured team URL";
  }
}

/** A driver or server error as a RecallError a user can act on (never the query text or password). */
export function teamError(error: unknown, url: string): RecallError {
  if (error instanceof RecallError) return error;
  const e = error as { code?: string; message?: string };
  const where = describeUrl(url);
  if (e.code === "42501") return new RecallError("Unavailable", `team store ${where}: permission denied`);
  if (e.code === "28P01" || e.code === "28000")
    return new RecallError("Unavailable", `team store ${where}: authentication failed`);
  if (e.code === "42P01")
    return new RecallError("Unavailable", `team store ${where}: no team schema (run recall team init)`);
  if (e.code === "ECONNREFUSED" || e.code === "ENOTFOUND" || e.code === "ETIMEDOUT")
    return new RecallError("Unavailable", `team store ${where}: cannot connect (${e.code})`);
  if (e.code === "ERR_INVALID_URL" || /invalid url/i.test(e.message ?? ""))
    return new RecallError("Config", "team url: not a postgres:// URL");
  return new RecallError("Unavailable", `team store ${where}: ${e.code ?? "error"}`, { cause: error });
}

/**
 * The driver, loaded on first use: every search_history call site imports this module, and a cold
 * `recall search` (local scope) should not pay for loading `pg`.
 */
async function driver(): Promise<typeof pg> {
  return (await import("pg")).default;
}

/** A team pool: a small pool for a long-lived server's searches, created on its first query. */
export interface TeamPool extends Queryable {
  end(): Promise<void>;
}

export function teamPool(url: string): TeamPool {
  let pool: Promise<pg.Pool> | null = null;
  const open = () =>
    (pool ??= driver().then((pg) => {
      const created = new pg.Pool({
        connectionString: url,
        max: 2,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 5_000,
      });
      // An idle connection the server drops must not crash the process.
      created.on("error", () => undefined);
      return created;
    }));
  return {
    async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) {
      try {
        return await (await open()).query<R>(text, values);
      } catch (error) {
        throw teamError(error, url);
      }
    },
    async end() {
      if (pool) await (await pool).end();
    },
  };
}

/** One connected client (push, admin verbs); the caller ends it. */
export async function teamClient(url: string): Promise<pg.Client> {
  const pg = await driver();
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  } catch (error) {
    throw teamError(error, url);
  }
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw teamError(error, url);
  }
  return client;
}
