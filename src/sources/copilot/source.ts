/**
 * GitHub Copilot CLI sessions: `<COPILOT_HOME or ~/.copilot>/session-state/<session>/events.jsonl`
 * (and the flat `session-state/<session>.jsonl` of versions before the per-session folders).
 * A resumed session appends to the same file, so it stays one conversation. `session-store.db`
 * holds only each turn's prompt and final answer again, so it is not read.
 *
 * Conversations `copilot:<session>`, hit ids `transcript:copilot:<session>:<event id>`.
 */
import path from "node:path";
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import { JsonlFileSource } from "../files/jsonl-source.js";
import { LineTranscriptParser, type LineFormat } from "../files/line-transcript.js";
import type { WalkRule } from "../files/walker.js";
import { mapCopilotLine } from "./record.js";
import { COPILOT_AGENT, COPILOT_SOURCE } from "./definition.js";
import { copilotSessions } from "./paths.js";

const EVENTS = "events.jsonl";

export const copilotWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (name.startsWith(".")) return "skip"; // operation locks
  if (depth === 0) {
    if (isDirectory) return "descend";
    return isFile && name.endsWith(".jsonl") ? "file" : "skip";
  }
  return depth === 1 && isFile && name === EVENTS ? "file" : "skip";
};

/** The session a transcript holds: its folder's name, or a flat file's own. */
export const copilotSession = (file: string) =>
  path.basename(file) === EVENTS ? path.basename(path.dirname(file)) : path.basename(file, ".jsonl");

const format: LineFormat = {
  source: COPILOT_SOURCE,
  agent: COPILOT_AGENT,
  session: copilotSession,
  map: mapCopilotLine,
};

export function createCopilotSource(env: Env, options: { maxLineBytes?: number } = {}): JsonlFileSource {
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: COPILOT_SOURCE,
    agent: COPILOT_AGENT,
    roots: () => [copilotSessions(env)],
    rule: copilotWalkRule,
    identify: (file) => (file.endsWith(".jsonl") ? { key: file, priority: 0 } : null),
    // The memory holds tool names of calls not yet completed: lines read again re-add the same.
    snapshotSurvivesReread: true,
    createParser: (context, state) => new LineTranscriptParser(format, context, state, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
