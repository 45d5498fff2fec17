import {
  accessSync,
  appendFileSync,
  constants,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { chatConversationId } from "../core/kinds.js";
import { makeRecallHome } from "../store/private-files.js";

/**
 * A content-free record of one tool call, kept by the surface that made it (not in the index):
 * counts, flags, durations and the ids of what was returned — never the query or any text.
 */
export interface AuditRecord {
  at: number;
  surface: "mcp" | "http" | "cli" | "library";
  tool: string;
  ok: boolean;
  durationMs: number;
  results: number;
  truncated: boolean;
  indexStatus: string | null;
  errorKind: string | null;
  /** Conversation or chat ids the caller was shown. */
  returned: string[];
}

export const AUDIT_FILE = "audit.jsonl";
/** The previous file once AUDIT_FILE passed AUDIT_MAX_BYTES: the log keeps at most two files. */
export const AUDIT_PREVIOUS_FILE = "audit.1.jsonl";
export const AUDIT_MAX_BYTES = 4 * 1024 * 1024;
const MAX_RETURNED_IDS = 50;

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/**
 * Derives the content-free summary of a tool's JSON output. `args` names what was read when the
 * output does not (get_conversation's records carry record ids, not their conversation): the id
 * is kept only when the call succeeded, so it named something indexed, never free text.
 */
export function summariseOutput(
  tool: string,
  output: string,
  args?: unknown,
  chatSource?: string | null,
): Omit<AuditRecord, "at" | "surface" | "tool" | "durationMs"> {
  // A chat's conversation in history.db is `chat:<source>:<chat id>` (sources/dyad); an embedded
  // index (no source) names it `chat:<chat id>`.
  const chat = (id: unknown) =>
    chatSource ? chatConversationId(chatSource, Number(id)) : `chat:${String(id)}`;
  let parsed: Record<string, unknown> = {};
  try {
    parsed = asRecord(JSON.parse(output));
  } catch {
    // Not JSON: count nothing.
  }
  const error = asRecord(parsed.error);
  const ids = new Set<string>();
  let results = 0;
  if (Array.isArray(parsed.hits)) {
    results = parsed.hits.length;
    for (const hit of parsed.hits) ids.add(String(asRecord(hit).conversation ?? asRecord(hit).id));
  } else if (Array.isArray(parsed.results)) {
    results = parsed.results.length;
    for (const r of parsed.results) ids.add(chat(asRecord(r).chat_id));
  } else if (Array.isArray(parsed.messages)) {
    results = parsed.messages.length;
    ids.add(chat(asRecord(parsed.chat).chat_id));
  } else if (Array.isArray(parsed.records)) {
    results = parsed.records.length;
    const read = asRecord(args).id;
    if (tool === "get_conversation" && typeof read === "string" && read.length <= 500) ids.add(read);
    else
      for (const r of parsed.records) {
        const id = String(asRecord(r).id);
        ids.add(id.includes("#") ? id.slice(0, id.indexOf("#")) : id);
      }
  }
  return {
    ok: !parsed.error,
    results,
    truncated: Boolean(parsed.results_truncated || parsed.output_truncated || parsed.next),
    indexStatus:
      typeof parsed.index_status === "string" ? parsed.index_status : coverageStatus(parsed.coverage),
    errorKind: typeof error.kind === "string" ? error.kind : null,
    returned: [...ids].slice(0, MAX_RETURNED_IDS),
  };
}

/** search_history's coverage in one word: the least advanced state of any source. */
function coverageStatus(coverage: unknown): string | null {
  // Every source ready is one object (store/coverage-row.ts SearchCoverage), else a list.
  if (!Array.isArray(coverage)) return asRecord(coverage).state === "ready" ? "ready" : null;
  const states = new Set(coverage.map((c) => String(asRecord(c).state)));
  for (const state of ["stale", "indexing"]) if (states.has(state)) return state;
  return coverage.length === 0 ? "empty" : "ready";
}

/**
 * Appends the content-free record of one call made by `surface`: the output is reduced to
 * counts, flags and ids here, and never stored.
 */
export function auditCall(
  home: string,
  surface: AuditRecord["surface"],
  tool: string,
  durationMs: number,
  output: string,
  args?: unknown,
  chatSource?: string | null,
): void {
  appendAudit(home, {
    at: Date.now(),
    surface,
    tool,
    durationMs: Math.round(durationMs * 10) / 10,
    ...summariseOutput(tool, output, args, chatSource),
  });
}

/**
 * Appends one record. Past AUDIT_MAX_BYTES the file becomes AUDIT_PREVIOUS_FILE (replacing the
 * one before), so the log stays within about twice that however long recall runs. Several
 * processes append; a rotation race can at worst drop one previous file.
 *
 * Best effort: the audit describes a call and must never fail it (a full disk, a folder in the
 * log's place). A failed write is counted in AUDIT_FAILURES_FILE for `recall status`, and the
 * result is false; it never throws.
 */
export function appendAudit(home: string, record: AuditRecord, maxBytes = AUDIT_MAX_BYTES): boolean {
  try {
    makeRecallHome(home);
    const file = path.join(home, AUDIT_FILE);
    try {
      if (statSync(file).size >= maxBytes) renameSync(file, path.join(home, AUDIT_PREVIOUS_FILE));
    } catch {
      // No file yet (or another process just rotated it).
    }
    appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    return true;
  } catch (error) {
    noteAuditFailure(home, error);
    return false;
  }
}

/** Failed audit writes: how many, and the last one's time and error code (no content). */
export const AUDIT_FAILURES_FILE = "audit.failures.json";

export interface AuditFailures {
  count: number;
  lastAt: number | null;
  lastError: string | null;
}

/** The failed audit writes counted so far (none when nothing was counted, or it cannot be read). */
export function readAuditFailures(home: string): AuditFailures {
  try {
    const value = JSON.parse(readFileSync(path.join(home, AUDIT_FAILURES_FILE), "utf8")) as AuditFailures;
    if (typeof value.count === "number") return value;
  } catch {
    // nothing counted
  }
  return { count: 0, lastAt: null, lastError: null };
}

/**
 * Counts one failed write. A small file rewritten in place may still be written when the log
 * cannot (a folder in its place, a log grown to the disk's end); when even this fails,
 * `auditLogProblem` still tells `recall status` what it can see.
 */
function noteAuditFailure(home: string, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  const before = readAuditFailures(home);
  const failures: AuditFailures = {
    count: before.count + 1,
    lastAt: Date.now(),
    lastError: typeof code === "string" ? code : (error as Error).name,
  };
  try {
    writeFileSync(path.join(home, AUDIT_FAILURES_FILE), JSON.stringify(failures), { mode: 0o600 });
  } catch {
    // nowhere to count it
  }
}

/** Why the audit log cannot be appended to right now, as far as can be seen without writing; null when it can. */
export function auditLogProblem(home: string): string | null {
  const file = path.join(home, AUDIT_FILE);
  try {
    if (statSync(file).isDirectory()) return "EISDIR";
    accessSync(file, constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ENOENT") return typeof code === "string" ? code : "error";
  }
  try {
    accessSync(home, constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? code : "error";
  }
}

/** A log's lines; one that cannot be read (a folder or a device in its place) has none. */
function linesOf(file: string): string[] {
  try {
    // Past twice the rotation size it is not a log recall wrote (a link to /dev/zero never ends).
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > 2 * AUDIT_MAX_BYTES) return [];
    return readFileSync(file, "utf8").trimEnd().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * The newest records first, at most `limit` (from the previous file too when needed). A line
 * that is not a record (cut short by a crash mid-append, or edited by hand) is passed over.
 */
export function readAudit(home: string, limit = 100): AuditRecord[] {
  let lines = linesOf(path.join(home, AUDIT_FILE));
  if (lines.length < limit) lines = [...linesOf(path.join(home, AUDIT_PREVIOUS_FILE)), ...lines];
  const records: AuditRecord[] = [];
  for (let i = lines.length - 1; i >= 0 && records.length < limit; i--) {
    const record = parseRecord(lines[i]!);
    if (record) records.push(record);
  }
  return records;
}

function parseRecord(line: string): AuditRecord | null {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null && typeof (value as AuditRecord).at === "number"
      ? (value as AuditRecord)
      : null;
  } catch {
    return null;
  }
}
