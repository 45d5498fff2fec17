/** A rollout's session_meta, and the thread id its file name carries. */
import { isRecord, num, obj, str, type JsonObject } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";
import type { CodexSessionMeta } from "./record-types.js";

const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\.jsonl)?(?:\.zst)?$/i;
/** A thread id as Codex writes it: a UUID. */
export const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The thread id at the end of a rollout file name (`rollout-…-<uuid>.jsonl[.zst]`), lower-cased. */
export function codexThreadIdFromPath(filePath: string): string | null {
  const base = filePath.split(/[\\/]/).pop() ?? filePath;
  return UUID.exec(base)?.[1]?.toLowerCase() ?? null;
}

/** Reads a session_meta payload; undefined without a thread id. */
export function readSessionMeta(payload: JsonObject, at: number | null): CodexSessionMeta | undefined {
  const threadId = str(payload["id"]) ?? str(payload["session_id"]);
  if (!threadId) return undefined;
  const git = obj(payload["git"]);
  const source = payload["source"];
  const rawSubagent = isRecord(source) ? source["subagent"] : undefined;
  const spawn = obj(obj(rawSubagent)["thread_spawn"]);
  const subagentKind =
    typeof rawSubagent === "string"
      ? rawSubagent
      : isRecord(rawSubagent)
        ? Object.keys(rawSubagent)[0]
        : undefined;
  const sourceName =
    typeof source === "string"
      ? source
      : isRecord(source)
        ? (Object.keys(source)[0] ?? undefined)
        : undefined;
  const fields: Partial<CodexSessionMeta> = {
    sessionId: str(payload["session_id"]),
    cwd: str(payload["cwd"]),
    gitBranch: str(git["branch"]),
    gitCommit: str(git["commit_hash"]),
    repositoryUrl: str(git["repository_url"]),
    cliVersion: str(payload["cli_version"]),
    originator: str(payload["originator"]),
    source: sourceName,
    subagentKind,
    threadSource: str(payload["thread_source"]),
    parentThreadId: str(spawn["parent_thread_id"]) ?? str(payload["parent_thread_id"]),
    forkedFromId: str(payload["forked_from_id"]),
    agentNickname: str(spawn["agent_nickname"]) ?? str(payload["agent_nickname"]),
    agentRole: str(spawn["agent_role"]) ?? str(payload["agent_role"]),
    agentPath: str(spawn["agent_path"]) ?? str(payload["agent_path"]),
    depth: num(spawn["depth"]),
    modelProvider: str(payload["model_provider"]),
  };
  const meta: CodexSessionMeta = { threadId, at: parseTimestamp(payload["timestamp"]) ?? at };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (meta as unknown as Record<string, unknown>)[key] = value;
  }
  return meta;
}
