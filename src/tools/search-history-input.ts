import { z } from "zod";
import { AgentName } from "../sources/registry.js";
import { queryTokens } from "../search/query.js";

/** Epoch milliseconds, or ISO 8601 with an explicit timezone (Z or ±hh:mm). */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** The latest instant a JavaScript Date holds (year 275760): a later bound names no time at all. */
const MAX_EPOCH_MS = 8.64e15;
const EPOCH_RANGE = `must be epoch milliseconds from 0 to ${MAX_EPOCH_MS} or ISO 8601 with a timezone`;

export const TimeBound = z.union([z.number().int().nonnegative(), z.string()]).transform((value, ctx) => {
  const trimmed = typeof value === "number" ? "" : value.trim();
  if (typeof value === "number" || /^\d+$/.test(trimmed)) {
    const epoch = typeof value === "number" ? value : Number(trimmed);
    if (epoch <= MAX_EPOCH_MS) return epoch;
    ctx.addIssue({ code: "custom", message: EPOCH_RANGE });
    return z.NEVER;
  }
  if (!ISO_WITH_ZONE.test(trimmed)) {
    ctx.addIssue({ code: "custom", message: "must be epoch milliseconds or ISO 8601 with a timezone" });
    return z.NEVER;
  }
  const ms = Date.parse(trimmed);
  if (Number.isNaN(ms) || !onCalendar(trimmed)) {
    ctx.addIssue({ code: "custom", message: "is not a valid date" });
    return z.NEVER;
  }
  return ms;
});

/** Whether an ISO date's day exists in its month (Date.parse reads 2026-02-30 as 2 March). */
function onCalendar(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(2000, m - 1, d));
  day.setUTCFullYear(y);
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** search_history's exact input (history-search-spec "Exact MCP contract"). */
export const SearchHistoryInput = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, { abort: true }) // an empty query is one mistake, not two
      .max(1000)
      .refine((q) => queryTokens(q, 1).length > 0, { message: "must contain at least one word or number" }),
    filters: z
      .object({
        project: z.string().min(1).optional(),
        session: z.string().min(1).optional(),
        job: z.string().min(1).optional(),
        agent: AgentName.optional(),
        kind: z
          .enum(["message", "run", "decision", "transcript", "approval", "progress", "report", "chat"])
          .optional(),
        since: TimeBound.optional(),
        until: TimeBound.optional(),
      })
      .strict()
      .optional()
      .refine((f) => f?.since === undefined || f.until === undefined || f.since <= f.until, {
        message: "since must not be after until",
        path: ["since"],
      }),
    limit: z.number().int().min(1).max(50).default(10),
    answer: z.boolean().default(false),
    /** Issue #37: "team" searches the team store (docs/team.md) with the same rules; "local" this index. */
    scope: z.enum(["local", "team"]).default("local"),
  })
  .strict();

export type SearchHistoryInput = z.infer<typeof SearchHistoryInput>;
