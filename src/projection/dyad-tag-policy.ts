import type { ProjectionMode } from "./types.js";
import { shortValue } from "./utf8.js";

/**
 * What the projection does with each Dyad tag (names from Dyad's DYAD_CUSTOM_TAG_NAMES; classes
 * in docs/sources/dyad.md, "What of a message is kept"). Matching is on the lower-cased tag name.
 *
 * - keep: the body is conversational signal and stays (prose-like group A, Dyad's
 *   PRESERVE_BODY_TAGS). Allowlisted header attributes become a short line before it.
 * - drop: nothing survives, neither body nor attributes (reasoning, and recall's own cards so
 *   retrieved history never becomes searchable copied history).
 * - metadata: everything else — code and file bodies (B), bulky tool output (C), metadata-only
 *   tags (D) and every tag without a policy here, including `dyad-*` tags not yet invented —
 *   fails closed: the body is omitted and a line `[label: value — value]` is built only from
 *   allowlisted attributes, each cut to ATTRIBUTE_MAX_CHARS.
 *
 * Adding a tag to KEEP_BODY_TAGS makes text searchable: add a test and bump PROJECTION_VERSION.
 */
export type TagClass = "keep" | "drop" | "metadata";

/** Longest kept attribute value, in code points. */
export const ATTRIBUTE_MAX_CHARS = 200;

/** Group A: header attributes shown before the kept body (empty: body only). */
export const KEEP_BODY_TAGS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ["dyad-chat-summary", []],
  ["dyad-compaction", []],
  ["dyad-write-plan", ["title", "summary"]],
  ["dyad-exit-plan", ["notes"]],
  ["dyad-questionnaire", []],
  ["dyad-app-blueprint", ["app-name", "template", "theme"]],
  ["dyad-security-finding", ["title", "level"]],
  ["dyad-status", ["title"]],
  ["dyad-step-limit", []],
  // Tool failures: `type` is warning/error, `message` the concise summary; the body holds details.
  ["dyad-output", ["type", "message"]],
]);

/**
 * Cards of recall's own tools (and Dyad's equivalents). Any card tag a recall tool emits must be
 * listed here, so that retrieved text is never indexed again.
 */
export const RECALL_CARD_TAGS: readonly string[] = [
  "dyad-search-chats",
  "dyad-read-chat",
  "dyad-explore-chat-history",
  "dyad-search-history",
  "dyad-get-conversation",
];

/** Reasoning tags: `think` is Dyad's; `thinking` is dropped too because models emit it. */
export const DROP_TAGS: ReadonlySet<string> = new Set(["think", "thinking", ...RECALL_CARD_TAGS]);

/**
 * Attributes a metadata line may show, in this order (Dyad #3948's list). Short identifiers only
 * ("which file, table, query, package"), never payloads.
 */
export const METADATA_ATTRIBUTES: readonly string[] = [
  "path",
  "from",
  "to",
  "query",
  "description",
  "operation",
  "server",
  "tool",
  "url",
  "table",
  "provider",
  "packages",
  "name",
  "guide",
  "type",
  "title",
  "summary",
  "app_name",
  "revision",
];

/**
 * Read mode also shows these short status attributes as `key=value` (an MCP result's is-error,
 * a card's aborted state, match counts), each cut to 40 characters.
 */
export const READ_STATUS_ATTRIBUTES: readonly string[] = [
  "is-error",
  "state",
  "level",
  "count",
  "total",
  "truncated",
];

export function classifyTag(lowerName: string): TagClass {
  if (DROP_TAGS.has(lowerName)) return "drop";
  if (KEEP_BODY_TAGS.has(lowerName)) return "keep";
  return "metadata";
}

/** `dyad-search-replace` -> `search replace`; bounded so a garbage name stays short. */
export function tagLabel(lowerName: string): string {
  const base = lowerName.startsWith("dyad-") ? lowerName.slice(5) : lowerName;
  const label = base.replace(/-+/g, " ").trim();
  return (label || "dyad").slice(0, 40).trim();
}

function line(label: string, parts: string[]): string {
  return parts.length > 0 ? `[${label}: ${parts.join(" — ")}]` : `[${label}]`;
}

function pick(attributes: ReadonlyMap<string, string>, names: readonly string[]): string[] {
  const parts: string[] = [];
  for (const name of names) {
    const value = attributes.get(name);
    if (value === undefined) continue;
    const short = shortValue(value, ATTRIBUTE_MAX_CHARS);
    if (short) parts.push(short);
  }
  return parts;
}

/** The line that replaces a metadata-class tag. */
export function metadataLine(
  lowerName: string,
  attributes: ReadonlyMap<string, string>,
  mode: ProjectionMode,
): string {
  const parts = pick(attributes, METADATA_ATTRIBUTES);
  if (mode === "read") {
    for (const name of READ_STATUS_ATTRIBUTES) {
      const value = attributes.get(name);
      if (value === undefined) continue;
      const short = shortValue(value, 40);
      if (short) parts.push(`${name}=${short}`);
    }
  }
  return line(tagLabel(lowerName), parts);
}

/** The header line of a kept-body tag, or "" when it has no header attributes set. */
export function keepHeaderLine(lowerName: string, attributes: ReadonlyMap<string, string>): string {
  const names = KEEP_BODY_TAGS.get(lowerName) ?? [];
  const parts = pick(attributes, names);
  return parts.length > 0 ? line(tagLabel(lowerName), parts) : "";
}
