/**
 * Cline CLI history: `$CLINE_DIR/data/sessions/<id>/<id>.messages.json` (CLINE_DIR defaults to
 * ~/.cline), one whole JSON document per session that Cline rewrites after every turn, read
 * through the JSON document base: a rewrite is the file's next version, so a resumed session
 * adds its new messages and repeats none. The metadata file `<id>.json` beside it gives the
 * project, title, model, branch and parent; it is read with each version of the messages.
 *
 * Conversation `cline:<sessionId>`; records keyed `<sessionId>:<messageId>` (hit id
 * `transcript:cline:<sessionId>:<messageId>`), which stay the same across rewrites.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import { JsonDocumentSource, type JsonDocument } from "../files/json-document-source.js";
import { conversationId, transcriptHitId } from "../ids.js";
import { parseJson } from "../shared/json.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import { clineSessionOf, mapClineMessages, mapClineMeta, type ClineMeta } from "./record.js";
import { CLINE_AGENT, CLINE_SOURCE } from "./definition.js";
import { clineSessionsDir } from "./paths.js";

const SUFFIX = ".messages.json";

function readMeta(file: string): ClineMeta {
  try {
    const parsed = parseJson(readFileSync(file, "utf8"));
    return mapClineMeta(parsed.ok ? parsed.value : null);
  } catch {
    // No metadata (yet): the messages are still read, without project or title.
    return mapClineMeta(null);
  }
}

export function readClineDocument(
  file: string,
  value: unknown,
  resolver: ProjectResolver,
): JsonDocument | null {
  const session = clineSessionOf(value) ?? path.basename(file).slice(0, -SUFFIX.length);
  if (!session) return null;
  const meta = readMeta(path.join(path.dirname(file), `${session}.json`));
  const { messages } = mapClineMessages(value);
  const conversation: ConversationRef = {
    id: conversationId(CLINE_AGENT, session),
    source: CLINE_SOURCE,
    agent: CLINE_AGENT,
    kind: "transcript",
    project: resolver.resolve(meta.cwd),
    session,
    parent: meta.parent ? conversationId(CLINE_AGENT, meta.parent) : null,
    title: meta.title,
    branch: meta.branch,
    model: messages.findLast((m) => m.model)?.model ?? meta.model,
  };
  // A message without `ts` takes the time of the one before it (the session start for the first).
  let at = meta.startedAt ?? 0;
  const records: SourceRecord[] = messages.map((m) => {
    at = m.at ?? at;
    return {
      sourceKey: `${session}:${m.key}`,
      hitId: transcriptHitId(CLINE_AGENT, session, m.key),
      conversation,
      at,
      role: m.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: m.turn },
      cursor: m.key,
      message: null,
      job: null,
      run: null,
      model: m.model ?? meta.model,
      branch: meta.branch,
    };
  });
  return { conversation, records, aliases: meta.title ? [meta.title] : [] };
}

export function createClineSource(env: Env, options: { maxLineBytes?: number } = {}): JsonDocumentSource {
  const resolver = new ProjectResolver();
  return new JsonDocumentSource({
    name: CLINE_SOURCE,
    agent: CLINE_AGENT,
    roots: () => [clineSessionsDir(env)],
    rule: ({ name, depth, isDirectory, isFile }) => {
      if (depth === 0) return isDirectory ? "descend" : "skip";
      return depth === 1 && isFile && name.endsWith(SUFFIX) ? "file" : "skip";
    },
    read: (file, value) => readClineDocument(file, value, resolver),
    ...(options.maxLineBytes !== undefined ? { maxDocumentBytes: options.maxLineBytes } : {}),
  });
}
