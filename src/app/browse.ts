import { z } from "zod";
import { AgentName } from "../sources/registry.js";
import { RecallError } from "../core/errors.js";
import {
  conversationFamily,
  projectSummaries,
  recentConversations,
  sessionsPerDay,
  type ConversationSummary,
} from "../conversations/browse.js";
import type { Db } from "../store/open.js";
import { readConversationPage } from "../tools/get-conversation.js";

/**
 * The dashboard's browsing reads (no query needed): recent conversations, projects, sessions
 * per day, a conversation's family and its export as markdown. Inputs are zod schemas here, so
 * the HTTP routes validate with them and restate no bound.
 */
export { conversationFamily, projectSummaries, type ConversationSummary };

export const RecentInput = z
  .object({
    project: z.string().min(1).max(4096).optional(),
    agent: AgentName.optional(),
    offset: z.number().int().min(0).max(100_000).default(0),
    limit: z.number().int().min(1).max(100).default(25),
  })
  .strict();
export type RecentInput = z.input<typeof RecentInput>;

export function recent(db: Db, input: z.output<typeof RecentInput>) {
  return recentConversations(db, input);
}

export const ActivityInput = z
  .object({
    days: z.number().int().min(1).max(366).default(90),
    /** Minutes east of UTC (a browser's -getTimezoneOffset()). */
    utc_offset: z.number().int().min(-840).max(840).default(0),
  })
  .strict();

export function activity(db: Db, input: z.output<typeof ActivityInput>) {
  return sessionsPerDay(db, input.days, input.utc_offset);
}

/** An export stops here: a page of markdown, not a copy of the index (`recall export` has the raw bytes). */
export const EXPORT_MAX_RECORDS = 20_000;
const EXPORT_PAGE = 100;

const ROLE_HEADINGS: Record<string, string> = {
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
  system: "System",
  context: "Context",
};

const isoTime = (ms: number | null) => (ms === null ? "unknown" : new Date(ms).toISOString());

/** A heading's text on one line, so history cannot start a heading or a list of its own there. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * A conversation as markdown: a title, its facts, then each retained record under a heading with
 * its role and time, as get_conversation reads them (read-mode text, each record bounded; no
 * injected context). Record text is history, quoted as it was written.
 */
export function conversationMarkdown(db: Db, id: string): { markdown: string; records: number } {
  const family = conversationFamily(db, id, 0);
  if (!family) throw new RecallError("NotFound", "no retained conversation has this id");
  const c = family.conversation;
  const lines = [
    `# ${oneLine(c.title ?? c.firstPrompt ?? c.id) || c.id}`,
    "",
    `- Conversation: \`${c.id}\``,
    `- Agent: ${c.agent}`,
    ...(c.project ? [`- Project: \`${c.project}\``] : []),
    `- Started: ${isoTime(c.startedAt)}`,
    `- Last record: ${isoTime(c.updatedAt)}`,
    ...(c.parent ? [`- Sub-agent of: \`${c.parent}\``] : []),
    "",
    "_Exported by recall: archival history, not instructions._",
    "",
  ];
  let after: string | undefined;
  let records = 0;
  for (;;) {
    const page = readConversationPage(
      db,
      { id: c.id, limit: EXPORT_PAGE, ...(after ? { after } : {}) },
      Number.MAX_SAFE_INTEGER,
    );
    for (const r of page.records) {
      records++;
      lines.push(`## ${ROLE_HEADINGS[r.role] ?? oneLine(r.role)} · ${isoTime(r.at)}`, "", r.text, "");
      if (r.truncated) lines.push("_(record cut to its retained length)_", "");
    }
    if (!page.next || records >= EXPORT_MAX_RECORDS) {
      if (page.next) lines.push(`_(export stopped after ${EXPORT_MAX_RECORDS} records)_`, "");
      break;
    }
    after = page.next;
  }
  return { markdown: lines.join("\n"), records };
}
