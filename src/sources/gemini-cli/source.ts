/**
 * Gemini CLI chats: `<.gemini>/tmp/<project>/chats/session-<time>-<id8>.jsonl`, an operation log
 * (record.ts). Conversation `gemini:<sessionId>` (the header's full id; the file name holds only
 * its first 8 hex digits). Records: one per message id, keyed `<sessionId>:<id>`; a message logged
 * again under its id (the copy that adds tool calls) is emitted again under the same key and
 * replaces the first. `$set.messages` lists are not records: they replay what the log already
 * holds (a resume), so reading them would duplicate every turn; they give the project only.
 * Project: `<project>/.project_root` (the absolute project folder Gemini CLI writes beside
 * `chats/`), else the session context's first workspace folder, resolved to its git root. Title:
 * the session's `summary` when the CLI wrote one. No branch: the format records none.
 * `tool-outputs/` side files are never read: the logged result keeps the output's head and tail.
 */
import { readFileSync } from "node:fs";
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
import { parseJsonObjectLine, str } from "../shared/json.js";
import type { ConversationRef } from "../types.js";
import { geminiProjects } from "./paths.js";
import { parseGeminiLine, type GeminiMessage } from "./record.js";
import { GEMINI_AGENT, GEMINI_SOURCE } from "./definition.js";

const CHAT_FILE = /^session-.*\.jsonl$/;

/** `<project>/chats/session-*.jsonl` below `<.gemini>/tmp`. */
export const geminiWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (depth === 0) return isDirectory ? "descend" : "skip"; // <project>
  if (depth === 1) return isDirectory && name === "chats" ? "descend" : "skip"; // not tool-outputs/
  if (depth === 2) return isFile && CHAT_FILE.test(name) ? "file" : "skip";
  return "skip";
};

/** The session id of a chat: the header's, else the file name's short id. */
function sessionOf(file: string, head: Buffer | undefined): string {
  const first = head?.toString("utf8").split("\n", 1)[0];
  const id = first ? str(parseJsonObjectLine(first)?.["sessionId"]) : undefined;
  return id ?? path.basename(file, ".jsonl").replace(/^session-/, "");
}

/** The folder Gemini CLI recorded for this chat's project (`.project_root` beside `chats/`). */
function projectRoot(file: string): string | undefined {
  try {
    const text = readFileSync(path.join(path.dirname(path.dirname(file)), ".project_root"), "utf8").trim();
    return text.startsWith("/") || /^[A-Za-z]:[\\/]/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** What holds wherever reading resumes (JsonlParser.learned). */
interface GeminiLearned {
  project?: string;
  title?: string;
  model?: string;
}

class GeminiParser implements JsonlParser {
  readonly conversationId: string;
  private readonly session: string;
  private conversation: ConversationRef;
  private lastAt: number;

  constructor(
    context: ParserContext,
    private readonly resolver: ProjectResolver,
  ) {
    this.session = sessionOf(context.path, context.head);
    this.conversationId = conversationId(GEMINI_AGENT, this.session);
    const learned = (context.learned ?? {}) as GeminiLearned;
    const root = projectRoot(context.path);
    this.conversation = {
      id: this.conversationId,
      source: GEMINI_SOURCE,
      agent: GEMINI_AGENT,
      kind: "transcript",
      project: root !== undefined ? resolver.resolve(root) : (learned.project ?? null),
      session: this.session,
      parent: null,
      title: learned.title ?? null,
      branch: null,
      model: learned.model ?? null,
    };
    this.lastAt = context.mtimeMs;
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    const parsed = parseGeminiLine(line.text);
    switch (parsed.type) {
      case "skip":
        if (parsed.reason === "malformed") sink.malformed();
        else sink.skipped();
        return;
      case "header":
      case "set":
        if (parsed.sessionId && parsed.sessionId !== this.session) sink.alias(parsed.sessionId, this.session);
        if (parsed.summary && parsed.summary !== this.conversation.title) {
          sink.alias(parsed.summary, this.session);
          this.update(sink, { title: parsed.summary });
        }
        if (parsed.type === "set" && parsed.workspace) this.learnProject(parsed.workspace, sink);
        return;
      case "message":
        this.message(parsed.message, line.offset, sink);
        return;
    }
  }

  private message(message: GeminiMessage, offset: number, sink: JsonlSink): void {
    if (message.workspace) this.learnProject(message.workspace, sink);
    if (message.model && message.model !== this.conversation.model)
      this.update(sink, { model: message.model });
    const at = message.at ?? this.lastAt;
    this.lastAt = at;
    sink.record({
      sourceKey: `${this.session}:${message.id}`,
      hitId: transcriptHitId(GEMINI_AGENT, this.session, message.id),
      conversation: this.conversation,
      at,
      role: message.role,
      kind: "transcript",
      content: { type: "turn", turn: message.turn },
      cursor: String(offset),
      message: null,
      job: null,
      run: null,
      model: message.model ?? null,
      branch: null,
    });
  }

  private learnProject(workspace: string, sink: JsonlSink): void {
    if (this.conversation.project !== null) return;
    this.update(sink, { project: this.resolver.resolve(workspace) });
  }

  private update(sink: JsonlSink, change: Partial<ConversationRef>): void {
    this.conversation = { ...this.conversation, ...change };
    sink.conversation(this.conversation);
  }

  drain(): void {}

  heldFrom(): number | null {
    return null;
  }

  snapshot(): unknown {
    return null;
  }

  learned(): GeminiLearned | undefined {
    const { project, title, model } = this.conversation;
    const learned: GeminiLearned = {
      ...(project !== null ? { project } : {}),
      ...(title ? { title } : {}),
      ...(model ? { model } : {}),
    };
    return Object.keys(learned).length > 0 ? learned : undefined;
  }
}

export function createGeminiSource(env: Env, options: { maxLineBytes?: number } = {}): JsonlFileSource {
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: GEMINI_SOURCE,
    agent: GEMINI_AGENT,
    roots: () => [geminiProjects(env)],
    rule: geminiWalkRule,
    identify: (file) => (CHAT_FILE.test(path.basename(file)) ? { key: file, priority: 0 } : null),
    // The header (first line) holds the full session id, which the file name does not.
    needsHead: () => true,
    createParser: (context) => new GeminiParser(context, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
