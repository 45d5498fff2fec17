/**
 * Codex CLI rollouts under CODEX_HOME (or ~/.codex): `sessions/YYYY/MM/DD/rollout-…-<threadId>.jsonl`
 * and `archived_sessions/`, plain or zstd-compressed (`.jsonl.zst`, decoded with fzstd). One
 * thread is one logical file: its plain and compressed twins, and a copy moved into
 * archived_sessions, share one checkpoint (`thread:<threadId>`), so a thread is indexed once;
 * the plain file in sessions/ is preferred, and a switch between twins continues at the same
 * offset of the decoded content when its head matches.
 *
 * Conversation `codex:<threadId>` (parent `codex:<parentThreadId>` for spawned subagents,
 * `codex:<forkedFromId>` for forks). A fork's replay of its parent is not indexed again:
 * records the parser marks provisional wait in `held` (saved in the checkpoint) for its
 * verdict, then are dropped ("parent") or emitted with their own keys ("own").
 * Records are keyed by the byte offset of the line that produced them (`<offset>`, or
 * `<offset>.<n>` for the n-th further record of one line): hit id
 * `transcript:codex:<threadId>:<offset>[.<n>]`, cursor the line's offset.
 */
import path from "node:path";
import { agentRoots, type Env } from "../../platform/paths.js";
import type { ConversationRef, SourceRecord } from "../types.js";
import {
  JsonlFileSource,
  type JsonlParser,
  type JsonlSink,
  type ParserContext,
} from "../files/jsonl-source.js";
import type { JsonlLine } from "../files/jsonl-reader.js";
import { ProjectResolver } from "../../platform/project.js";
import type { WalkRule } from "../files/walker.js";
import {
  codexThreadIdFromPath,
  createCodexRolloutParser,
  type CodexParserState,
  type CodexRecord,
  type CodexRolloutParser,
  type CodexSessionMeta,
  type CodexTitleRecord,
  type CodexTurnRecord,
} from "./record.js";
import { conversationId, transcriptHitId } from "../ids.js";
import { CODEX_AGENT, CODEX_SOURCE } from "./definition.js";

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

/**
 * At most this many provisional records wait for a verdict; past it the oldest is delivered as
 * the fork's own (a possible duplicate of the parent's, never a loss). Replays of writers that
 * name their thread in every turn's events hold a handful; this bounds memory and the
 * checkpoint's size whatever the file.
 */
export const MAX_HELD_RECORDS = 32;

interface HeldRecord {
  record: CodexTurnRecord | CodexTitleRecord;
  offset: number;
  index: number;
  supersedes?: string;
}

interface CodexSnapshot {
  parser: CodexParserState;
  candidate: { offset: number; index: number } | null;
  title: string | null;
  /** Provisional records of a fork's possible replay, awaiting a verdict. */
  held?: HeldRecord[];
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
  private held: HeldRecord[];

  constructor(
    context: ParserContext,
    snapshot: unknown,
    private readonly resolver: ProjectResolver,
  ) {
    const fromName = codexThreadIdFromPath(context.path);
    this.thread = fromName ?? path.basename(context.path).replace(/\.jsonl(\.zst)?$/, "");
    this.conversationId = conversationId(CODEX_AGENT, this.thread);
    const saved = snapshot as CodexSnapshot | null;
    this.parser = createCodexRolloutParser(fromName, saved?.parser);
    this.candidate = saved?.candidate ?? null;
    this.held = saved?.held ?? [];
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
      if (record.type === "replay") {
        this.verdict(record.verdict, sink);
        continue;
      }
      if (isHeldMessage(record)) {
        const origin = this.candidate ?? { offset: line.offset, index: 1000 };
        this.deliver(record as CodexTurnRecord, origin.offset, origin.index, sink);
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

  /**
   * A message held for its event twin stays held (in the snapshot) while the file may still
   * grow: released now it would be keyed by its response_item line, where a read that finds
   * the twin keys it by the event line, and a rebuild would then write the message twice.
   */
  drain(sink: JsonlSink, settled: boolean): void {
    if (!settled) return;
    for (const record of this.parser.flush()) {
      if (record.type !== "turn") continue;
      const origin = this.candidate ?? { offset: 0, index: 1000 };
      this.deliver(record, origin.offset, origin.index, sink);
    }
  }

  heldFrom(): number | null {
    return null; // held messages and records live in the snapshot, which the checkpoint saves
  }

  snapshot(): unknown {
    return {
      parser: this.parser.snapshot(),
      candidate: this.candidate,
      title: this.conversation.title,
      held: structuredClone(this.held),
    } satisfies CodexSnapshot;
  }

  /**
   * A turn or title record, held while provisional (a fork's possible replay). `supersedes`:
   * the key its response_item copy got from a reader that released that copy on its own.
   */
  private deliver(
    record: CodexTurnRecord | CodexTitleRecord,
    offset: number,
    index: number,
    sink: JsonlSink,
    supersedes?: string,
  ): void {
    if (record.provisional) {
      this.held.push({ record, offset, index, ...(supersedes ? { supersedes } : {}) });
      if (this.held.length > MAX_HELD_RECORDS) this.release(this.held.shift()!, sink);
      return;
    }
    if (record.type === "title") this.title(record.title, sink);
    else this.emit(record, offset, index, sink, supersedes);
  }

  private verdict(verdict: "parent" | "own", sink: JsonlSink): void {
    const held = this.held;
    this.held = [];
    if (verdict === "parent") {
      if (held.length > 0) sink.skipped(held.length);
      return;
    }
    for (const record of held) this.release(record, sink);
  }

  /** A held record delivered as the fork's own. */
  private release(held: HeldRecord, sink: JsonlSink): void {
    const { provisional: _provisional, ...kept } = held.record;
    this.deliver(kept, held.offset, held.index, sink, held.supersedes);
  }

  private title(title: string, sink: JsonlSink): void {
    this.update(sink, { title });
    sink.alias(title, this.thread);
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
        this.deliver(record, offset, index, sink);
        return;
      case "turn": {
        // The held copy came from the candidate line: the key a release would have given it.
        const held = record.replacesHeld && this.candidate ? this.candidate : null;
        this.deliver(record, offset, index, sink, held ? keyOf(held.offset, held.index) : undefined);
        return;
      }
      case "replay":
        return; // handled in line()
    }
  }

  private applyMeta(meta: CodexSessionMeta, sink: JsonlSink | null): void {
    this.metaSeen = true;
    const parentOf = meta.parentThreadId ?? meta.forkedFromId ?? internalThreadRoot(meta);
    const change: Partial<ConversationRef> = {
      project: this.resolver.resolve(meta.cwd) ?? this.conversation.project,
      // The spawning thread for subagents, else the thread a fork copied, else (review,
      // compaction and guardian threads) the root thread they ran for.
      parent: parentOf ? conversationId(CODEX_AGENT, parentOf.toLowerCase()) : this.conversation.parent,
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

  private emit(
    record: CodexTurnRecord,
    offset: number,
    index: number,
    sink: JsonlSink,
    supersedes?: string,
  ): void {
    const change: Partial<ConversationRef> = {};
    if (record.model && record.model !== this.conversation.model) change.model = record.model;
    if (!this.metaSeen && this.conversation.project === null && record.cwd) {
      change.project = this.resolver.resolve(record.cwd);
    }
    if (Object.keys(change).length > 0) this.update(sink, change);
    const at = record.at ?? this.lastAt;
    this.lastAt = at;
    const key = keyOf(offset, index);
    const out: SourceRecord = {
      sourceKey: `${this.thread}:${key}`,
      hitId: transcriptHitId(CODEX_AGENT, this.thread, key),
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
      ...(supersedes ? { supersedes: [`${this.thread}:${supersedes}`] } : {}),
    };
    sink.record(out);
  }
}

/** A record's key within its thread: its line's offset, and its place among that line's records. */
function keyOf(offset: number, index: number): string {
  return index === 0 ? String(offset) : `${offset}.${index}`;
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

/**
 * The root thread of an internal thread (a `source.subagent` variant without a spawning thread:
 * `/review`, compaction, guardian auto-review): its `session_id`, which names the root thread in
 * subagent threads (transcript-formats.md §2.3 and §2.8). Undefined for any other thread.
 */
function internalThreadRoot(meta: CodexSessionMeta): string | undefined {
  if (meta.source !== "subagent" || !meta.sessionId) return undefined;
  return meta.sessionId.toLowerCase() === meta.threadId.toLowerCase() ? undefined : meta.sessionId;
}
