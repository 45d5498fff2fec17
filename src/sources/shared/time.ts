/**
 * Timestamps as the three CLIs write them: ISO 8601 strings (Claude, Codex), epoch
 * milliseconds (opencode, Codex `*_at_ms`) and epoch seconds, integral or fractional
 * (Codex `started_at`/`completed_at`, `create_time`). Everything becomes epoch ms or null.
 */
import { LATEST_INSTANT_MS } from "../../core/instant.js";

/** Below this a number is read as seconds: 1e11 s is the year 5138, 1e11 ms is 1973. */
const SECONDS_CEILING = 1e11;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const NUMERIC = /^-?\d+(\.\d+)?$/;

export type TimeUnit = "auto" | "ms" | "s";

/**
 * Epoch ms from an ISO string, a number, or a numeric string; null when absent or
 * unparseable (for example a publisher's "[trimmed]" placeholder). `unit` forces the
 * reading of numbers; "auto" treats values below 1e11 as seconds. Zero and negative
 * values are treated as absent: no transcript predates 1970; nor is one dated after the year 9999.
 */
export function parseTimestamp(value: unknown, unit: TimeUnit = "auto"): number | null {
  if (typeof value === "number") return fromNumber(value, unit);
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text.length === 0) return null;
  if (NUMERIC.test(text)) return fromNumber(Number(text), unit);
  if (!ISO_LIKE.test(text)) return null;
  const ms = Date.parse(text.includes("T") || text.length === 10 ? text : text.replace(" ", "T"));
  return Number.isFinite(ms) && ms > 0 && ms <= LATEST_INSTANT_MS ? ms : null;
}

function fromNumber(value: number, unit: TimeUnit): number | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  const seconds = unit === "s" || (unit === "auto" && value < SECONDS_CEILING);
  const ms = Math.round(seconds ? value * 1000 : value);
  return ms <= LATEST_INSTANT_MS ? ms : null;
}

/** The first candidate that parses. */
export function firstTimestamp(...candidates: [unknown, TimeUnit?][]): number | null {
  for (const [value, unit] of candidates) {
    const ms = parseTimestamp(value, unit ?? "auto");
    if (ms !== null) return ms;
  }
  return null;
}
