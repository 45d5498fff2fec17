/**
 * What people type for `--since` / `--until`, turned into what the tools' contract takes (epoch
 * ms or ISO 8601 with a timezone, which pass through unchanged for the tool to check): a plain
 * date (`2026-01-31`, this machine's local day), a relative age (`7d`, `12h`, `2w`: that long
 * ago) or `today` / `yesterday`. A day as `--until` means its end, so `--since D --until D` is D.
 */
export const TIME_ARG_HELP = "a date (2026-01-31), 7d / 12h / 2w ago, today, yesterday, epoch ms or ISO 8601";

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const RELATIVE = /^(\d{1,5})([hdw])$/;
const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A day's first or last millisecond, local time; null when the date does not exist. */
function localDay(year: number, month: number, day: number, edge: "since" | "until"): number | null {
  const start = new Date(year, month - 1, day);
  if (start.getFullYear() !== year || start.getMonth() !== month - 1 || start.getDate() !== day) return null;
  return edge === "since" ? start.getTime() : new Date(year, month - 1, day + 1).getTime() - 1;
}

export function timeArg(value: string, edge: "since" | "until", now: Date = new Date()): string {
  const text = value.trim().toLowerCase();
  const relative = RELATIVE.exec(text);
  if (relative) {
    return new Date(
      now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS],
    ).toISOString();
  }
  const date = PLAIN_DATE.exec(text);
  const back = text === "today" ? 0 : text === "yesterday" ? 1 : null;
  const day = back === null ? null : new Date(now.getFullYear(), now.getMonth(), now.getDate() - back);
  const ms = date
    ? localDay(Number(date[1]), Number(date[2]), Number(date[3]), edge)
    : day
      ? localDay(day.getFullYear(), day.getMonth() + 1, day.getDate(), edge)
      : null;
  // Anything else goes to the tool as typed: its own message names what it accepts.
  return ms === null ? value : new Date(ms).toISOString();
}
