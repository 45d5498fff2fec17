/**
 * Codex CLI rollouts under CODEX_HOME (or ~/.codex): `sessions/YYYY/MM/DD/rollout-…-<threadId>.jsonl`
 * and `archived_sessions/`, plain or zstd-compressed (`.jsonl.zst`, decoded with fzstd). One
 * thread is one logical file: its plain and compressed twins, and a copy moved into
 * archived_sessions, share one checkpoint (`thread:<threadId>`), so a thread is indexed once;
 * the plain file in sessions/ is preferred, and a switch between twins continues at the same
 * offset of the decoded content when its head matches.
 *
 * Conversation `codex:<threadId>` (parent `codex:<parentThreadId>` for spawned subagents).
 * Records are keyed by the byte offset of the line that produced them (`<offset>`, or
 * `<offset>.<n>` for the n-th further record of one line): hit id
 * `transcript:codex:<threadId>:<offset>[.<n>]`, cursor the line's offset.
 */
import path from "node:path";
import { agentRoots, type Env } from "../../config/paths.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import {
  JsonlFileSource,
  type JsonlParser,
  type JsonlSink,
  type ParserContext,
} from "../files/jsonl-source.js";
import type { JsonlLine } from "../files/jsonl-reader.js";
import { ProjectResolver } from "../files/project.js";
import type { WalkRule } from "../files/walker.js";
import {
  codexThreadIdFromPath,
  createCodexRolloutParser,
  type CodexParserState,
  type CodexRecord,
  type CodexRolloutParser,
  type CodexSessionMeta,
  type CodexTurnRecord,
} from "./record.js";

export const CODEX_SOURCE = "codex";
export const CODEX_AGENT = "codex";

const ROLLOUT = /^rollout-.*\.jsonl(\.zst)?$/;

/** Discovery walk below `sessions/` and `archived_sessions/` (dated folders, or flat). */
export const codexWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (isFile) return ROLLOUT.test(name) ? "file" : "skip";
  return isDirectory && depth < 3 ? "descend" : "skip";
};

/** Twins of one thread: plain before compressed, sessions/ before archived_sessions/. */
export function identifyCodexPath(file: string): { key: string; priority: number } | null {
  const name = path.basename(file);
  if (!ROLLOUT.test(name)) return null;
  const thread = codexThreadIdFromPath(file);
  const compressed = name.endsWith(".zst") ? 2 : 0;
  const archived = file.split(/[\\/]/).includes("archived_sessions") ? 1 : 0;
  return { key: thread ? `thread:${thread}` : file, priority: compressed + archived };
}

interface CodexSnapshot {
  parser: CodexParserState;
  candidate: { offset: number; index: number } | null;
  title: string | null;
}

class CodexFileParser implements JsonlParser {
  readonly conversationId: string;
  private readonly thread: string;
  private readonly parser: CodexRolloutParser;
  private conversation: ConversationRef;
  /** The last line that may have left a user/assistant message held inside the parser. */
  private candidate: { offset: number; index: number } | null;
  private lastAt: number;
  private metaSeen = false;

  constructor(
    context: ParserContext,
    snapshot: unknown,
    private readonly resolver: ProjectResolver,
  ) {
    const fromName = codexThreadIdFromPath(context.path);
    this.thread = fromName ?? path.basename(context.path).replace(/\.jsonl(\.zst)?$/, "");
    this.conversationId = `codex:${this.thread}`;
    const saved = snapshot as CodexSnapshot | null;
    this.parser = createCodexRolloutParser(fromName, saved?.parser);
    this.candidate = saved?.candidate ?? null;
    this.lastAt = context.mtimeMs;
    this.conversation = {
      id: this.conversationId,
      source: CODEX_SOURCE,
      agent: CODEX_AGENT,
      kind: "transcript",
      project: null,
      session: this.thread,
      parent: null,
      title: saved?.title ?? null,
      branch: null,
      model: null,
    };
    const meta = this.parser.meta;
    if (meta) this.applyMeta(meta, null);
    const model = saved?.parser.model;
    if (model) this.conversation.model = model;
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    const out = this.parser.push(line.text);
    let own = 0;
    let ownTurns = 0;
    let onlyContext = true;
    for (const record of out) {
      if (isHeldMessage(record)) {
        const origin = this.candidate ?? { offset: line.offset, index: 1000 };
        this.emit(record as CodexTurnRecord, origin.offset, origin.index, sink);
        continue;
      }
      own += 1;
      if (!(record.type === "turn" && record.layer === "response_item" && record.item === "message"))
        onlyContext = false;
      this.handle(record, line.offset, ownTurns, sink);
      if (record.type === "turn") ownTurns += 1;
    }
    // A line whose own output is empty, or only injected context from a response message,
    // may have left its user/assistant text held; the next released message came from it.
    if (own === 0 || onlyContext) this.candidate = { offset: line.offset, index: ownTurns };
  }

  drain(sink: JsonlSink): void {
    for (const record of this.parser.flush()) {
      if (record.type !== "turn") continue;
      const origin = this.candidate ?? { offset: 0, index: 1000 };
      this.emit(record, origin.offset, origin.index, sink);
    }
  }

  heldFrom(): number | null {
    return null; // held messages live in the parser state, which the checkpoint saves
  }

  snapshot(): unknown {
    return {
      parser: this.parser.snapshot(),
      candidate: this.candidate,
      title: this.conversation.title,
    } satisfies CodexSnapshot;
  }

  private handle(record: CodexRecord, offset: number, index: number, sink: JsonlSink): void {
    switch (record.type) {
      case "skip":
        if (record.reason === "malformed") sink.malformed();
        else sink.skipped();
        return;
      case "meta":
        this.applyMeta(record.meta, sink);
        return;
      case "title":
        this.update(sink, { title: record.title });
        sink.alias(record.title, this.thread);
        return;
      case "turn":
        this.emit(record, offset, index, sink);
        return;
    }
  }

  private applyMeta(meta: CodexSessionMeta, sink: JsonlSink | null): void {
    this.metaSeen = true;
    const change: Partial<ConversationRef> = {
      project: this.resolver.resolve(meta.cwd) ?? this.conversation.project,
      parent: meta.parentThreadId ? `codex:${meta.parentThreadId.toLowerCase()}` : this.conversation.parent,
      branch: meta.gitBranch ?? this.conversation.branch ?? null,
    };
    this.conversation = { ...this.conversation, ...change };
    if (!sink) return;
    sink.conversation(this.conversation);
    if (meta.sessionId && meta.sessionId.toLowerCase() !== this.thread)
      sink.alias(meta.sessionId, this.thread);
    if (meta.threadId.toLowerCase() !== this.thread) sink.alias(meta.threadId, this.thread);
  }

  private update(sink: JsonlSink, change: Partial<ConversationRef>): void {
    this.conversation = { ...this.conversation, ...change };
    sink.conversation(this.conversation);
  }

  private emit(record: CodexTurnRecord, offset: number, index: number, sink: JsonlSink): void {
    const change: Partial<ConversationRef> = {};
    if (record.model && record.model !== this.conversation.model) change.model = record.model;
    if (!this.metaSeen && this.conversation.project === null && record.cwd) {
      change.project = this.resolver.resolve(record.cwd);
    }
    if (Object.keys(change).length > 0) this.update(sink, change);
    const at = record.at ?? this.lastAt;
    this.lastAt = at;
    const key = index === 0 ? String(offset) : `${offset}.${index}`;
    const out: SourceRecord = {
      sourceKey: `${this.thread}:${key}`,
      hitId: `transcript:${CODEX_AGENT}:${this.thread}:${key}`,
      conversation: this.conversation,
      at,
      role: record.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: record.turn },
      cursor: String(offset),
      message: null,
      job: null,
      run: null,
      model: record.model ?? null,
      branch: this.conversation.branch ?? null,
    };
    sink.record(out);
  }
}

/** A user/assistant message from the response layer: the parser only ever emits these after holding them. */
function isHeldMessage(record: CodexRecord): boolean {
  return (
    record.type === "turn" &&
    record.layer === "response_item" &&
    record.item === "message" &&
    (record.turn.role === "user" || record.turn.role === "assistant")
  );
}

export interface CodexSourceOptions {
  root?: string;
  maxLineBytes?: number;
}

export function createCodexSource(env: Env, options: CodexSourceOptions = {}): JsonlFileSource {
  const root = options.root ?? agentRoots(env).codex;
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: CODEX_SOURCE,
    agent: CODEX_AGENT,
    roots: () => [path.join(root, "sessions"), path.join(root, "archived_sessions")],
    rule: codexWalkRule,
    identify: identifyCodexPath,
    createParser: (context, state) => new CodexFileParser(context, state, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
