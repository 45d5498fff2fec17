/**
 * pi sessions: `<PI_CODING_AGENT_DIR or ~/.pi/agent>/sessions/--<cwd>--/<time>_<session>.jsonl`,
 * one file per session; `--continue` appends to the same file, so a resumed session stays one
 * conversation. Conversations `pi:<session>` (the uuid the header and the file name carry), hit
 * ids `transcript:pi:<session>:<entry id>`.
 */
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import { JsonlFileSource } from "../files/jsonl-source.js";
import { LineTranscriptParser, type LineFormat } from "../files/line-transcript.js";
import type { WalkRule } from "../files/walker.js";
import { mapPiLine } from "./record.js";
import { piSession } from "./session.js";
import { PI_AGENT, PI_SOURCE } from "./definition.js";
import { piSessions } from "./paths.js";

export const piWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (depth === 0) return isDirectory ? "descend" : "skip";
  return depth === 1 && isFile && name.endsWith(".jsonl") ? "file" : "skip";
};

const format: LineFormat = { source: PI_SOURCE, agent: PI_AGENT, session: piSession, map: mapPiLine };

export function createPiSource(env: Env, options: { maxLineBytes?: number } = {}): JsonlFileSource {
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: PI_SOURCE,
    agent: PI_AGENT,
    roots: () => [piSessions(env)],
    rule: piWalkRule,
    identify: (file) => (file.endsWith(".jsonl") ? { key: file, priority: 0 } : null),
    createParser: (context, state) => new LineTranscriptParser(format, context, state, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
