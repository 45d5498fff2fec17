/**
 * Kilo Code CLI (7.x) keeps opencode 1.x's schema in `kilo.db`: `session`, `message` and `part`
 * rows whose `data` column is JSON. Their mapping is opencode's (../opencode/record.ts); what is
 * Kilo's own is here. Pure: source.ts selects the rows.
 */
import type { OpencodeRow, OpencodeSessionMeta } from "../opencode/record.js";
import { mapOpencodeSessionRow } from "../opencode/record.js";

/** A message row with its parts, as the base pages (and retains) it. */
export interface KiloMessageRow extends OpencodeRow {
  id: string;
  updatedAt: number;
  parts: OpencodeRow[];
}

export interface KiloSessionRow extends OpencodeRow {
  id: string;
  updatedAt: number;
}

/**
 * Kilo names every session `New session - <ISO time>` and, unlike opencode, sends no title
 * request: that placeholder is no title (the conversation is then named by its first prompt).
 */
const PLACEHOLDER_TITLE = /^New session - \d{4}-\d{2}-\d{2}T[\d:.]+Z$/;

export function mapKiloSession(row: KiloSessionRow): OpencodeSessionMeta | undefined {
  const meta = mapOpencodeSessionRow(row);
  if (!meta) return undefined;
  if (meta.title && PLACEHOLDER_TITLE.test(meta.title)) delete meta.title;
  return meta;
}
