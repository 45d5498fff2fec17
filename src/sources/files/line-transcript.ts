/**
 * A JSONL parser for transcript formats where one line is at most one record and the session's
 * facts (project, branch, model, title) arrive on lines of their own (GitHub Copilot CLI's
 * events.jsonl, pi's session trees). A format supplies `map`, a pure line -> LineEvent function;
 * this class keeps the conversation those facts build, the learned facts a parser rebuilt from a
 * checkpoint starts from, and a small state the format's own mapping needs (tool names by call id).
 */
import type { TranscriptTurn } from "../../core/transcript.js";
import type { ProjectResolver } from "../../platform/project.js";
import { conversationId, transcriptHitId } from "../ids.js";
import type { ConversationRef } from "../types.js";
import type { JsonlLine } from "./jsonl-reader.js";
import type { JsonlParser, JsonlSink, ParserContext } from "./jsonl-source.js";

/** Facts about the session a line states. */
export interface SessionFacts {
  cwd?: string;
  branch?: string;
  model?: string;
  /** A title the session was given (a name the person chose): the latest one holds. */
  title?: string;
  /** The session this one was forked from. */
  parent?: string;
}

export type LineEvent =
  | { type: "malformed" }
  | { type: "skip"; facts?: SessionFacts }
  | {
      type: "record";
      /** Unique within the file (an event id, an entry id): the source key is `<session>:<key>`. */
      key: string;
      at: number | null;
      turn: TranscriptTurn;
      model?: string;
      facts?: SessionFacts;
    };

/** What `map` may remember between lines (saved in the checkpoint: keep it small and bounded). */
export type LineMemory = Record<string, string>;

export interface LineFormat {
  source: string;
  agent: string;
  /** The session a file holds, from its path. */
  session(file: string): string;
  map(text: string, memory: LineMemory): LineEvent;
  /** At most this many entries stay in the memory (oldest dropped first). */
  maxMemory?: number;
}

interface Learned {
  project?: string;
  branch?: string;
  model?: string;
  title?: string;
  parent?: string;
}

export class LineTranscriptParser implements JsonlParser {
  readonly conversationId: string;
  private readonly session: string;
  private conversation: ConversationRef;
  private readonly memory: LineMemory;
  private lastAt: number;

  constructor(
    private readonly format: LineFormat,
    context: ParserContext,
    snapshot: unknown,
    private readonly resolver: ProjectResolver,
  ) {
    this.session = format.session(context.path);
    this.conversationId = conversationId(format.agent, this.session);
    const learned = (context.learned ?? {}) as Learned;
    this.conversation = {
      id: this.conversationId,
      source: format.source,
      agent: format.agent,
      kind: "transcript",
      project: learned.project ?? null,
      session: this.session,
      parent: learned.parent ?? null,
      title: learned.title ?? null,
      branch: learned.branch ?? null,
      model: learned.model ?? null,
    };
    this.memory = { ...((snapshot as LineMemory | null) ?? {}) };
    this.lastAt = context.mtimeMs;
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    const event = this.format.map(line.text, this.memory);
    this.bound();
    if (event.type === "malformed") return sink.malformed();
    if (event.facts) this.learn(event.facts, sink);
    if (event.type === "skip") return sink.skipped();
    if (event.model) this.learn({ model: event.model }, sink);
    const at = event.at ?? this.lastAt;
    this.lastAt = at;
    sink.record({
      sourceKey: `${this.session}:${event.key}`,
      hitId: transcriptHitId(this.format.agent, this.session, event.key),
      conversation: this.conversation,
      at,
      role: event.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: event.turn },
      cursor: String(line.offset),
      message: null,
      job: null,
      run: null,
      model: event.model ?? this.conversation.model ?? null,
      branch: this.conversation.branch ?? null,
    });
  }

  drain(): void {}

  heldFrom(): number | null {
    return null;
  }

  snapshot(): unknown {
    return Object.keys(this.memory).length > 0 ? { ...this.memory } : null;
  }

  learned(): Learned | undefined {
    const { project, branch, model, title, parent } = this.conversation;
    const learned: Learned = {
      ...(parent ? { parent } : {}),
      ...(project ? { project } : {}),
      ...(branch ? { branch } : {}),
      ...(model ? { model } : {}),
      ...(title ? { title } : {}),
    };
    return Object.keys(learned).length > 0 ? learned : undefined;
  }

  /** The first cwd names the project; branch, model, title and parent follow the latest line stating them. */
  private learn(facts: SessionFacts, sink: JsonlSink): void {
    const change: Partial<ConversationRef> = {};
    if (facts.cwd && this.conversation.project === null) change.project = this.resolver.resolve(facts.cwd);
    if (facts.branch && facts.branch !== this.conversation.branch) change.branch = facts.branch;
    if (facts.model && facts.model !== this.conversation.model) change.model = facts.model;
    if (facts.title && facts.title !== this.conversation.title) change.title = facts.title;
    if (facts.parent && facts.parent !== this.session) {
      const parent = conversationId(this.format.agent, facts.parent);
      if (parent !== this.conversation.parent) change.parent = parent;
    }
    if (change.title) sink.alias(change.title, this.session);
    if (Object.keys(change).length === 0) return;
    this.conversation = { ...this.conversation, ...change };
    sink.conversation(this.conversation);
  }

  private bound(): void {
    const max = this.format.maxMemory ?? 256;
    const keys = Object.keys(this.memory);
    for (let i = 0; i < keys.length - max; i++) delete this.memory[keys[i]!];
  }
}
