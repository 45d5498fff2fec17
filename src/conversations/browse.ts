import type { Db } from "../store/open.js";
import { statement } from "../store/statements.js";

/**
 * What the dashboard browses without a query: recent conversations, projects, sessions per day
 * and a conversation's place among its sub-agents. Read from recall_conversations (one row per
 * conversation) and the first user record, never from raw chunks: the same read-mode text
 * get_conversation returns, so nothing raw from a tool payload or thinking reaches a page.
 */

/** An agent filter value as search_history applies it: "other" is every agent but the spec's three CLIs. */
export type BrowseAgent = string;

/** A first prompt is a label, not the record: cut here so a page never carries a 4 KB record per row. */
export const FIRST_PROMPT_CHARS = 240;

export interface ConversationSummary {
  id: string;
  agent: string;
  kind: string;
  project: string | null;
  title: string | null;
  /** The first user record's text (cut), for a conversation with no title of its own. */
  firstPrompt: string | null;
  startedAt: number | null;
  updatedAt: number | null;
  /** Records retained (the conversation's next ordinal: records are never renumbered). */
  records: number;
  parent: string | null;
  subAgents: number;
}

const SUMMARY_COLUMNS = `c.id, c.agent, c.kind, c.project, c.title, c.started_at AS startedAt,
  c.updated_at AS updatedAt, c.next_ordinal AS records, c.parent,
  (SELECT substr(r.text, 1, ${FIRST_PROMPT_CHARS}) FROM recall_records r
    WHERE r.conversation = c.id AND r.role = 'user' ORDER BY r.at, r.ordinal LIMIT 1) AS firstPrompt`;

function agentCondition(agent: BrowseAgent | undefined, params: unknown[]): string {
  if (agent === undefined) return "1";
  if (agent === "other") return "c.agent NOT IN ('claude', 'codex', 'opencode')";
  params.push(agent);
  return "c.agent = ?";
}

/** How many sub-agent conversations each of these has: one query for a page, not one per row. */
function subAgentCounts(db: Db, ids: readonly string[]): Map<string, number> {
  if (ids.length === 0) return new Map();
  const rows = db
    .prepare(
      `SELECT parent, count(*) AS n FROM recall_conversations
       WHERE parent IN (${ids.map(() => "?").join(", ")}) GROUP BY parent`,
    )
    .all(...ids) as { parent: string; n: number }[];
  return new Map(rows.map((r) => [r.parent, r.n]));
}

type SummaryRow = Omit<ConversationSummary, "subAgents">;

function withSubAgents(db: Db, rows: SummaryRow[]): ConversationSummary[] {
  const counts = subAgentCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, subAgents: counts.get(r.id) ?? 0 }));
}

/** A page of top-level conversations, last written first (walks recall_conversations_recent). */
export const recentSql = (where: readonly string[]) =>
  `SELECT ${SUMMARY_COLUMNS} FROM recall_conversations c WHERE ${where.join(" AND ")}
   ORDER BY c.updated_at DESC, c.id LIMIT ? OFFSET ?`;

export interface RecentQuery {
  project?: string;
  agent?: BrowseAgent;
  offset: number;
  limit: number;
}

/**
 * Top-level conversations (sub-agents are listed under their parent), most recently written
 * first; one extra row says whether another page follows.
 */
export function recentConversations(
  db: Db,
  query: RecentQuery,
): { conversations: ConversationSummary[]; more: boolean } {
  const params: unknown[] = [];
  const where = ["c.parent IS NULL", agentCondition(query.agent, params)];
  if (query.project !== undefined) {
    where.push("c.project = ?");
    params.push(query.project);
  }
  const rows = statement(db, recentSql(where)).all(...params, query.limit + 1, query.offset) as SummaryRow[];
  const more = rows.length > query.limit;
  return { conversations: withSubAgents(db, rows.slice(0, query.limit)), more };
}

/** Each project's top-level conversations per agent (read from recall_conversations_projects alone). */
export const PROJECTS_SQL = `SELECT project, agent, count(*) AS n, max(updated_at) AS updatedAt
  FROM recall_conversations WHERE project IS NOT NULL AND parent IS NULL GROUP BY project, agent`;

export interface ProjectSummary {
  project: string;
  conversations: number;
  updatedAt: number | null;
  /** Conversations per agent. */
  agents: Record<string, number>;
}

/** Every project with its conversations per agent, most recently active first. */
export function projectSummaries(db: Db): ProjectSummary[] {
  const rows = statement(db, PROJECTS_SQL).all() as {
    project: string;
    agent: string;
    n: number;
    updatedAt: number | null;
  }[];
  const byProject = new Map<string, ProjectSummary>();
  for (const r of rows) {
    let p = byProject.get(r.project);
    if (!p)
      byProject.set(r.project, (p = { project: r.project, conversations: 0, updatedAt: null, agents: {} }));
    p.conversations += r.n;
    p.agents[r.agent] = r.n;
    if (r.updatedAt !== null && (p.updatedAt === null || r.updatedAt > p.updatedAt))
      p.updatedAt = r.updatedAt;
  }
  return [...byProject.values()].sort(
    (a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0) || a.project.localeCompare(b.project),
  );
}

export interface ActivityDay {
  /** YYYY-MM-DD in the caller's time zone. */
  day: string;
  agent: string;
  sessions: number;
}

const DAY_MS = 86_400_000;

/** An ordered read, so it walks the started-at index from its end (max() with a WHERE scans). */
export const NEWEST_START_SQL = `SELECT started_at AS at FROM recall_conversations
  WHERE parent IS NULL AND started_at IS NOT NULL ORDER BY started_at DESC LIMIT 1`;

/** Sessions per day (shifted to a zone) and agent; a bound number arrives as a REAL, so the day is cast. */
export const SESSIONS_PER_DAY_SQL = `SELECT CAST((started_at + ?) / ${DAY_MS} AS INTEGER) AS d, agent,
  count(*) AS sessions FROM recall_conversations WHERE parent IS NULL AND started_at >= ?
  GROUP BY d, agent ORDER BY d, agent`;

/**
 * Top-level sessions started per day and agent over the `days` days up to the newest session
 * (an index not updated lately still shows its last months). Days are counted in the caller's
 * zone: `utcOffsetMinutes` east of UTC.
 */
export function sessionsPerDay(
  db: Db,
  days: number,
  utcOffsetMinutes: number,
): { from: string | null; to: string | null; days: ActivityDay[] } {
  const shift = utcOffsetMinutes * 60_000;
  const row = statement(db, NEWEST_START_SQL).get() as { at: number } | undefined;
  if (row === undefined) return { from: null, to: null, days: [] };
  const newest = row.at;
  const lastDay = Math.floor((newest + shift) / DAY_MS);
  const firstDay = lastDay - days + 1;
  const rows = statement(db, SESSIONS_PER_DAY_SQL).all(shift, firstDay * DAY_MS - shift) as {
    d: number;
    agent: string;
    sessions: number;
  }[];
  const iso = (d: number) => new Date(d * DAY_MS).toISOString().slice(0, 10);
  return {
    from: iso(firstDay),
    to: iso(lastDay),
    days: rows.map((r) => ({ day: iso(r.d), agent: r.agent, sessions: r.sessions })),
  };
}

/** A conversation's summary, its parent's and its sub-agents' (oldest first, at most `maxChildren`). */
export function conversationFamily(
  db: Db,
  id: string,
  maxChildren = 200,
): {
  conversation: ConversationSummary;
  parent: ConversationSummary | null;
  subAgents: ConversationSummary[];
} | null {
  const one = statement(db, `SELECT ${SUMMARY_COLUMNS} FROM recall_conversations c WHERE c.id = ?`);
  const row = one.get(id) as SummaryRow | undefined;
  if (!row) return null;
  const parentRow = row.parent === null ? undefined : (one.get(row.parent) as SummaryRow | undefined);
  const children = statement(
    db,
    `SELECT ${SUMMARY_COLUMNS} FROM recall_conversations c WHERE c.parent = ?
     ORDER BY coalesce(c.started_at, 0), c.id LIMIT ?`,
  ).all(id, maxChildren) as SummaryRow[];
  const [conversation, parent] = withSubAgents(db, parentRow ? [row, parentRow] : [row]);
  return { conversation: conversation!, parent: parent ?? null, subAgents: withSubAgents(db, children) };
}
