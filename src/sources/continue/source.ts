/**
 * Continue CLI history: `$CONTINUE_GLOBAL_DIR/sessions/<sessionId>.json` (CONTINUE_GLOBAL_DIR
 * defaults to ~/.continue), one JSON document per session rewritten whole after every turn, read
 * through the JSON document base: a rewrite (a `--resume`) is the file's next version, so new
 * items are added and none is repeated. `sessions.json` beside them is Continue's index; it is
 * read only for a session's creation time, the one time Continue records (see record.ts).
 *
 * Conversation `continue:<sessionId>`; records keyed `<sessionId>:<history index>` (hit id
 * `transcript:continue:<sessionId>:<index>`).
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import { JsonDocumentSource, type JsonDocument } from "../files/json-document-source.js";
import { conversationId, transcriptHitId } from "../ids.js";
import { arr, obj, parseJson, str } from "../shared/json.js";
import { parseTimestamp } from "../shared/time.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import { continueTimes, continueTitle, mapContinueHistory } from "./record.js";
import { CONTINUE_AGENT, CONTINUE_SOURCE } from "./definition.js";
import { continueSessionsDir } from "./paths.js";

const INDEX_FILE = "sessions.json";

/** A session's `dateCreated` from sessions.json (epoch ms, stored as a string), if listed. */
function createdFromIndex(dir: string, session: string): number | null {
  try {
    const parsed = parseJson(readFileSync(path.join(dir, INDEX_FILE), "utf8"));
    if (!parsed.ok) return null;
    const entry = arr(parsed.value).find((e) => str(obj(e)["sessionId"]) === session);
    return entry ? parseTimestamp(obj(entry)["dateCreated"], "ms") : null;
  } catch {
    return null;
  }
}

function createdFromFile(file: string): number {
  try {
    const stat = statSync(file);
    return Math.floor(stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.mtimeMs);
  } catch {
    return 0;
  }
}

export function readContinueDocument(
  file: string,
  value: unknown,
  resolver: ProjectResolver,
): JsonDocument | null {
  const doc = obj(value);
  if (!Array.isArray(doc["history"])) return null;
  const session = str(doc["sessionId"]) ?? path.basename(file, ".json");
  const { items } = mapContinueHistory(value);
  const title = continueTitle(value);
  const created = createdFromIndex(path.dirname(file), session) ?? createdFromFile(file);
  const conversation: ConversationRef = {
    id: conversationId(CONTINUE_AGENT, session),
    source: CONTINUE_SOURCE,
    agent: CONTINUE_AGENT,
    kind: "transcript",
    project: resolver.resolve(str(doc["workspaceDirectory"])),
    session,
    parent: null,
    title,
    branch: null,
    model: items.findLast((i) => i.model)?.model ?? null,
  };
  const records: SourceRecord[] = items.map((item) => {
    const key = String(item.index);
    return {
      sourceKey: `${session}:${key}`,
      hitId: transcriptHitId(CONTINUE_AGENT, session, key),
      conversation,
      at: continueTimes(created, item.index),
      role: item.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: item.turn },
      cursor: key,
      message: null,
      job: null,
      run: null,
      model: item.model,
      branch: null,
    };
  });
  return { conversation, records, aliases: title ? [title] : [] };
}

export function createContinueSource(env: Env, options: { maxLineBytes?: number } = {}): JsonDocumentSource {
  const resolver = new ProjectResolver();
  return new JsonDocumentSource({
    name: CONTINUE_SOURCE,
    agent: CONTINUE_AGENT,
    roots: () => [continueSessionsDir(env)],
    rule: ({ name, depth, isFile }) =>
      depth === 0 && isFile && name.endsWith(".json") && name !== INDEX_FILE ? "file" : "skip",
    read: (file, value) => readContinueDocument(file, value, resolver),
    ...(options.maxLineBytes !== undefined ? { maxDocumentBytes: options.maxLineBytes } : {}),
  });
}
