import { spawnSync } from "node:child_process";
import type { Db } from "../store/open.js";
import { distribution, fig, median, round, timeSync, type Distribution, type Figure } from "./measure.js";

/**
 * What recall is compared with, on the same corpus and the same needles: ripgrep over the source
 * files (what a person does without an index) and a LIKE scan over the same SQLite data (what an
 * app without FTS does). Ratios are recall's median time over the baseline's median time.
 */
export interface Baseline {
  available: boolean;
  note?: string;
  latency?: Distribution;
  /** Share of needles the baseline found at all. */
  found?: Figure;
  /** recall's median over this baseline's median, same needles. */
  ratio?: Figure;
}

export function ripgrepVersion(): string | null {
  const r = spawnSync("rg", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? (r.stdout.split("\n")[0] ?? "rg") : null;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** ripgrep, fixed string, case-insensitive, listing matching files, binary files searched as text (SQLite stores). */
export function ripgrepBaseline(
  roots: readonly string[],
  needles: readonly string[],
  recallMs: readonly number[],
): Baseline {
  const version = ripgrepVersion();
  if (!version)
    return { available: false, note: "ripgrep (rg) is not installed; install the Debian package ripgrep" };
  const times: number[] = [];
  let found = 0;
  for (const n of needles) {
    const { ms, value } = timeSync(() =>
      spawnSync("rg", ["-a", "-l", "-F", "-i", "--no-messages", "-e", n, ...roots], {
        encoding: "utf8",
        maxBuffer: 64 << 20,
      }),
    );
    times.push(ms);
    if (value.stdout.trim().length > 0) found++;
  }
  return {
    available: true,
    note: `${version}; -a -l -F -i over the CLIs' folders (JSONL, opencode SQLite)`,
    latency: distribution(times),
    found: fig(round(found / Math.max(1, needles.length)), "share of needles"),
    ratio: fig(round(median(recallMs) / median(times), 5), "× (recall / ripgrep)"),
  };
}

/** A LIKE scan: the newest 10 rows containing the needle (no index can help a leading %). */
export function likeBaseline(
  db: Db,
  sql: string,
  params: (needle: string) => unknown[],
  needles: readonly string[],
  recallMs: readonly number[],
): Baseline {
  const statement = db.prepare(sql);
  const times: number[] = [];
  let found = 0;
  for (const n of needles) {
    const { ms, value } = timeSync(() => statement.all(...params(`%${escapeLike(n)}%`)));
    times.push(ms);
    if (value.length > 0) found++;
  }
  return {
    available: true,
    latency: distribution(times),
    found: fig(round(found / Math.max(1, needles.length)), "share of needles"),
    ratio: fig(round(median(recallMs) / median(times), 5), "× (recall / LIKE)"),
  };
}

/** A document's text is its own body, or its record's read text when the body is '' (schema v10). */
export const HISTORY_LIKE_SQL = `SELECT d.id FROM recall_documents d
  WHERE d.title LIKE ? ESCAPE '\\' OR d.body LIKE ? ESCAPE '\\'
    OR (d.body = '' AND (SELECT rt.text FROM recall_records rt WHERE rt.id = d.record) LIKE ? ESCAPE '\\')
  ORDER BY d.at DESC LIMIT 10`;
export const CHATS_LIKE_SQL = `SELECT m.id FROM messages m JOIN chats c ON c.id = m.chat_id
  WHERE c.app_id = ? AND m.content LIKE ? ESCAPE '\\' ORDER BY m.created_at DESC LIMIT 10`;
