/**
 * Qwen Code chats: `<runtime>/projects/<cwd slug>/chats/<sessionId>.jsonl` (and one folder deeper,
 * `chats/archive/`). A resume appends to the same file under the same session. Conversation
 * `qwen:<sessionId>`; records keyed `<sessionId>:<uuid>`, hit id `transcript:qwen:<session>:<uuid>`,
 * cursor the line's byte offset. Project: the lines' `cwd` (the first one) resolved to its git
 * root; branch and model as the lines record them, latest wins. Qwen Code writes no title. The
 * full outputs it saves under `<runtime>/tmp/<hash>/` are never read: the logged result keeps the
 * output's head and tail.
 */
import path from "node:path";
import type { Env } from "../../platform/paths.js";
import { ProjectResolver } from "../../platform/project.js";
import type { JsonlLine } from "../files/jsonl-reader.js";
import {
  JsonlFileSource,
  type JsonlParser,
  type JsonlSink,
  type ParserContext,
} from "../files/jsonl-source.js";
import type { WalkRule } from "../files/walker.js";
import { conversationId, transcriptHitId } from "../ids.js";
import type { ConversationRef } from "../types.js";
import { qwenProjects } from "./paths.js";
import { parseQwenLine } from "./record.js";
import { QWEN_AGENT, QWEN_SOURCE } from "./definition.js";

/** `<slug>/chats/*.jsonl` and `<slug>/chats/<folder>/*.jsonl` below `<runtime>/projects`. */
export const qwenWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (depth === 0) return isDirectory ? "descend" : "skip"; // <slug>
  if (depth === 1) return isDirectory && name === "chats" ? "descend" : "skip";
  if (depth === 2) {
    if (isFile) return name.endsWith(".jsonl") ? "file" : "skip";
    return isDirectory ? "descend" : "skip"; // chats/archive
  }
  if (depth === 3) return isFile && name.endsWith(".jsonl") ? "file" : "skip";
  return "skip";
};

class QwenParser implements JsonlParser {
  readonly conversationId: string;
  private readonly session: string;
  private conversation: ConversationRef;
  private lastAt: number;

  constructor(
    context: ParserContext,
    private readonly resolver: ProjectResolver,
  ) {
    this.session = path.basename(context.path, ".jsonl");
    this.conversationId = conversationId(QWEN_AGENT, this.session);
    this.conversation = {
      id: this.conversationId,
      source: QWEN_SOURCE,
      agent: QWEN_AGENT,
      kind: "transcript",
      project: null,
      session: this.session,
      parent: null,
      title: null,
      branch: null,
      model: null,
    };
    this.lastAt = context.mtimeMs;
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    const parsed = parseQwenLine(line.text);
    if (parsed.type === "skip") {
      if (parsed.reason === "malformed") sink.malformed();
      else sink.skipped();
      return;
    }
    const change: Partial<ConversationRef> = {};
    if (this.conversation.project === null && parsed.cwd) change.project = this.resolver.resolve(parsed.cwd);
    if (parsed.gitBranch && parsed.gitBranch !== this.conversation.branch) change.branch = parsed.gitBranch;
    if (parsed.model && parsed.model !== this.conversation.model) change.model = parsed.model;
    if (Object.keys(change).length > 0) {
      this.conversation = { ...this.conversation, ...change };
      sink.conversation(this.conversation);
    }
    if (parsed.sessionId && parsed.sessionId !== this.session) sink.alias(parsed.sessionId, this.session);
    const at = parsed.at ?? this.lastAt;
    this.lastAt = at;
    sink.record({
      sourceKey: `${this.session}:${parsed.uuid}`,
      hitId: transcriptHitId(QWEN_AGENT, this.session, parsed.uuid),
      conversation: this.conversation,
      at,
      role: parsed.role,
      kind: "transcript",
      content: { type: "turn", turn: parsed.turn },
      cursor: String(line.offset),
      message: null,
      job: null,
      run: null,
      model: parsed.model ?? null,
      branch: parsed.gitBranch ?? null,
    });
  }

  drain(): void {}

  heldFrom(): number | null {
    return null;
  }

  snapshot(): unknown {
    return null;
  }
}

export function createQwenSource(env: Env, options: { maxLineBytes?: number } = {}): JsonlFileSource {
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: QWEN_SOURCE,
    agent: QWEN_AGENT,
    roots: () => [qwenProjects(env)],
    rule: qwenWalkRule,
    identify: (file) => (file.endsWith(".jsonl") ? { key: file, priority: 0 } : null),
    createParser: (context) => new QwenParser(context, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
