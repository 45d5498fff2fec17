/**
 * Claude Code transcripts under each config root (CLAUDE_CONFIG_DIR, a comma list, or
 * ~/.claude and ~/.config/claude): `projects/<slug>/<sessionId>.jsonl`, subagents in both layouts
 * (`<slug>/<sessionId>/subagents/agent-<id>.jsonl`, workflows below it, and the pre-2.1.2 flat
 * `<slug>/agent-<id>.jsonl`). `tool-results/` side files are never read for search.
 *
 * Conversations: `claude:<sessionId>` for a session file, `claude:<sessionId>/agent-<agentId>`
 * for a subagent file (parent `claude:<sessionId>`; its documents carry the parent's session so
 * the session filter finds them). Records: one per merged API response or user line, keyed by
 * the (first) uuid, which also dedupes copies across files. Hit id
 * `transcript:claude:<session>:<uuid>`, cursor the line's byte offset. Titles: `custom-title` and
 * `ai-title` name their file's session; a classic `summary` names the conversation holding its
 * `leafUuid`, which is often another session's (see ClaudeFileParser.line).
 */
import { readFileSync } from "node:fs";
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
import { createClaudeMerger, parseClaudeLine, type ClaudeRecord, type ClaudeTurnRecord } from "./record.js";
import { RecentMap, RecentSet } from "../shared/bounded.js";
import { isRecord, parseJsonObjectLine, str } from "../shared/json.js";
import { conversationId, transcriptHitId } from "../ids.js";
import { CLAUDE_AGENT, CLAUDE_SOURCE } from "./definition.js";

const AGENT_FILE = /^agent-([^/\\]+)\.jsonl$/;

export type ClaudeFileKind =
  | { kind: "session"; sessionId: string }
  | { kind: "subagent"; sessionId: string; agentId: string }
  | { kind: "flat-subagent"; agentId: string };

/** What a path under `projects/` is, or null when it is not a transcript. */
export function classifyClaudePath(file: string): ClaudeFileKind | null {
  const parts = file.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? "";
  if (!name.endsWith(".jsonl")) return null;
  const projects = parts.lastIndexOf("projects");
  if (projects < 0) return null;
  const below = parts.slice(projects + 1); // <slug>/...
  const agent = AGENT_FILE.exec(name);
  if (below.length === 2) {
    if (agent) return { kind: "flat-subagent", agentId: agent[1]! };
    return { kind: "session", sessionId: name.slice(0, -".jsonl".length) };
  }
  const subagents = below.indexOf("subagents");
  if (agent && subagents === 2) return { kind: "subagent", sessionId: below[1]!, agentId: agent[1]! };
  return null;
}

/** Discovery walk below `<root>/projects`. */
export const claudeWalkRule: WalkRule = ({ name, depth, isDirectory, isFile }) => {
  if (depth === 0) return isDirectory ? "descend" : "skip"; // <slug>
  if (depth === 1) {
    if (isFile) return name.endsWith(".jsonl") ? "file" : "skip";
    return isDirectory ? "descend" : "skip"; // <sessionId>
  }
  if (depth === 2) return isDirectory && name === "subagents" ? "descend" : "skip"; // not tool-results/
  if (depth === 3) {
    if (isFile) return AGENT_FILE.test(name) ? "file" : "skip";
    return isDirectory && name === "workflows" ? "descend" : "skip";
  }
  if (depth === 4) return isDirectory ? "descend" : "skip"; // workflows/<id>
  if (depth === 5) return isFile && AGENT_FILE.test(name) ? "file" : "skip";
  return "skip";
};

/** A pre-2.1.2 flat subagent file names no session: its lines carry the parent's sessionId. */
function sessionFromHead(head: Buffer | undefined): string | null {
  if (!head) return null;
  const text = head.toString("utf8");
  const lines = text.split("\n");
  if (lines.length > 1) lines.pop(); // a cut final line
  for (const line of lines) {
    const record = parseJsonObjectLine(line);
    const id = record ? (str(record["sessionId"]) ?? str(record["session_id"])) : undefined;
    if (id) return id;
  }
  // A first line longer than the head (a long Task prompt): Claude Code writes sessionId before
  // the message, so it is read from the cut line (an escaped quote would be inside a string).
  return SESSION_KEY.exec(text)?.[1] ?? null;
}

const SESSION_KEY = /(?<!\\)"(?:sessionId|session_id)"\s*:\s*"([^"\\]{1,200})"/;

function subagentTitle(file: string): string | null {
  try {
    const meta = JSON.parse(readFileSync(file.replace(/\.jsonl$/, ".meta.json"), "utf8")) as unknown;
    if (!isRecord(meta)) return null;
    const type = str(meta["agentType"]);
    const description = str(meta["description"]);
    if (type && description) return `${type}: ${description}`;
    return description ?? type ?? null;
  } catch {
    return null;
  }
}

interface ClaudeSnapshot {
  /** A flat subagent file's session, learned from its first lines. */
  sessionId?: string;
  /** Summary titles waiting for their leaf uuid to turn up in this file. */
  titles?: [string, string][];
}

/**
 * What a file's lines taught that later lines may not repeat (JsonlParser.learned): a parser
 * rebuilt from the checkpoint (after a restart, for a file that grew after it was read to its
 * end, or for one of many files read in turn) starts from it, or its documents would lose the
 * title and its project could move to a later cwd.
 */
interface ClaudeLearned {
  title?: string;
  /** The first cwd's project. */
  project?: string;
  /** The person named the session (`custom-title`): a later generated title does not replace it. */
  named?: true;
}

class ClaudeFileParser implements JsonlParser {
  readonly conversationId: string;
  private conversation: ConversationRef;
  private readonly session: string;
  /** Repeated uuids are also deduped by the index (one record and document per uuid), so a small memory suffices. */
  private readonly merger = createClaudeMerger({ maxSeenUuids: 4096 });
  /**
   * uuid → offsets of its lines pushed and not emitted yet, oldest first. A uuid repeated in the
   * file (a copied line, skipped as a duplicate) has several; each line's entry leaves with it.
   */
  private readonly held = new Map<string, number[]>();
  /** Uuids of this file's recent turns, and summary titles whose leaf has not turned up yet (see line()). */
  private readonly recentUuids = new RecentSet(4096);
  private readonly pendingTitles: RecentMap<string>;
  private lastAt: number;
  /** See ClaudeLearned.named. */
  private named: boolean;
  private cwdSeen = false;
  private readonly isMain: boolean;
  /** A subagent's title from its path (not saved: the path gives it again). */
  private readonly initialTitle: string | null;

  constructor(
    context: ParserContext & { head?: Buffer },
    snapshot: unknown,
    private readonly resolver: ProjectResolver,
  ) {
    const kind = classifyClaudePath(context.path) ?? {
      kind: "session" as const,
      sessionId: path.basename(context.path, ".jsonl"),
    };
    let sessionId: string;
    let id: string;
    let parent: string | null = null;
    let title: string | null = null;
    if (kind.kind === "session") {
      sessionId = kind.sessionId;
      id = conversationId(CLAUDE_AGENT, sessionId);
    } else {
      const known = (snapshot as ClaudeSnapshot | null)?.sessionId;
      sessionId =
        kind.kind === "subagent"
          ? kind.sessionId
          : (known ?? sessionFromHead(context.head) ?? `agent-${kind.agentId}`);
      id = `${conversationId(CLAUDE_AGENT, sessionId)}/agent-${kind.agentId}`;
      parent = sessionId === `agent-${kind.agentId}` ? null : conversationId(CLAUDE_AGENT, sessionId);
      title = kind.kind === "subagent" ? subagentTitle(context.path) : null;
    }
    this.isMain = kind.kind === "session";
    this.initialTitle = title;
    this.session = sessionId;
    this.conversationId = id;
    this.conversation = {
      id,
      source: CLAUDE_SOURCE,
      agent: CLAUDE_AGENT,
      kind: "transcript",
      project: null,
      session: sessionId,
      parent,
      title,
      branch: null,
      model: null,
    };
    this.lastAt = context.mtimeMs;
    this.pendingTitles = new RecentMap(64, (snapshot as ClaudeSnapshot | null)?.titles ?? []);
    const learned = context.learned as ClaudeLearned | undefined;
    this.named = learned?.named === true;
    if (learned?.title !== undefined) this.conversation.title = learned.title;
    if (learned?.project !== undefined) {
      this.conversation.project = learned.project;
      this.cwdSeen = true;
    }
  }

  line(line: JsonlLine, sink: JsonlSink): void {
    const record = parseClaudeLine(line.text);
    switch (record.type) {
      case "skip":
        if (record.reason === "malformed") sink.malformed();
        else sink.skipped();
        return;
      case "title":
        // A summary names the conversation holding its leaf uuid, and Claude Code writes
        // summaries of other sessions into a new session's file: it titles this one only once
        // its leaf is seen here. Meanwhile it may name an already indexed conversation.
        if (record.source === "summary" && record.leafUuid && !this.recentUuids.has(record.leafUuid)) {
          this.pendingTitles.set(record.leafUuid, record.title);
          sink.titleClaim({ leaf: record.leafUuid, title: record.title, origin: this.conversation });
          return;
        }
        this.title(record.title, sink, record.source === "custom-title");
        return;
      case "turn": {
        const pending = this.pendingTitles.size > 0 ? this.pendingTitles.get(record.uuid) : undefined;
        if (pending !== undefined) {
          this.pendingTitles.delete(record.uuid);
          this.title(pending, sink);
        }
        this.recentUuids.add(record.uuid);
        this.learn(record, sink);
        const offsets = this.held.get(record.uuid);
        if (offsets) offsets.push(line.offset);
        else this.held.set(record.uuid, [line.offset]);
        for (const out of this.merger.push(record)) this.emit(out, sink);
        return;
      }
    }
  }

  /**
   * Claude Code writes a response one content block per line as it streams: while the file may
   * still grow, the open response is emitted as it stands but stays held (the checkpoint stays
   * before its first line), and its later lines merge into it, emitted again under the same key
   * (the index updates that record). A settled file's open response is final.
   */
  drain(sink: JsonlSink, settled: boolean): void {
    if (settled) {
      for (const out of this.merger.flush()) this.emit(out, sink);
      return;
    }
    const { open, done } = this.merger.settle();
    if (open) this.emit(open, sink, true);
    for (const out of done) this.emit(out, sink);
  }

  heldFrom(): number | null {
    let min: number | null = null;
    for (const offsets of this.held.values())
      for (const offset of offsets) if (min === null || offset < min) min = offset;
    return min;
  }

  snapshot(): unknown {
    const titles = this.pendingTitles.size > 0 ? { titles: this.pendingTitles.toJSON() } : {};
    const snapshot: ClaudeSnapshot = this.isMain ? titles : { sessionId: this.session, ...titles };
    return Object.keys(snapshot).length > 0 ? snapshot : null;
  }

  learned(): ClaudeLearned | undefined {
    const { title, project } = this.conversation;
    const learned: ClaudeLearned = {
      ...(title !== null && title !== this.initialTitle ? { title } : {}),
      ...(project !== null ? { project } : {}),
      ...(this.named ? { named: true as const } : {}),
    };
    return Object.keys(learned).length > 0 ? learned : undefined;
  }

  /**
   * Titles the conversation; every title is an alias. A title the person chose (`custom-title`)
   * is kept over generated ones (`ai-title`, summaries) that Claude Code writes after it.
   */
  private title(title: string, sink: JsonlSink, chosen = false): void {
    sink.alias(title, this.session);
    if (this.named && !chosen) return;
    this.named ||= chosen;
    this.update(sink, { title });
  }

  private update(sink: JsonlSink, change: Partial<ConversationRef>): void {
    this.conversation = { ...this.conversation, ...change };
    sink.conversation(this.conversation);
  }

  /** Conversation metadata from a line: project (first cwd), branch and model as they change. */
  private learn(record: ClaudeTurnRecord, sink: JsonlSink): void {
    const change: Partial<ConversationRef> = {};
    if (!this.cwdSeen && record.cwd) {
      this.cwdSeen = true;
      change.project = this.resolver.resolve(record.cwd);
    }
    if (record.gitBranch && record.gitBranch !== this.conversation.branch) change.branch = record.gitBranch;
    if (record.model && record.model !== this.conversation.model && record.model !== "<synthetic>") {
      change.model = record.model;
    }
    if (Object.keys(change).length > 0) this.update(sink, change);
    if (this.isMain && record.sessionId && record.sessionId !== this.session) {
      sink.alias(record.sessionId, this.session);
    }
  }

  /** Forgets one held line of a uuid: a record's own (the first) or a skipped repeat (the last). */
  private release(uuid: string, which: "first" | "last"): void {
    const offsets = this.held.get(uuid);
    if (!offsets) return;
    if (which === "first") offsets.shift();
    else offsets.pop();
    if (offsets.length === 0) this.held.delete(uuid);
  }

  /** `keepHeld`: an open response emitted as it stands; its lines stay held (see drain). */
  private emit(record: ClaudeRecord, sink: JsonlSink, keepHeld = false): void {
    if (record.type === "skip") {
      // A skipped repeat is the latest line of its uuid: the first (an open response) stays held.
      if (record.uuid) this.release(record.uuid, "last");
      sink.skipped();
      return;
    }
    if (record.type !== "turn") return;
    const offset = this.held.get(record.uuid)?.[0] ?? null;
    const at = record.at ?? this.lastAt;
    this.lastAt = at;
    const lines = record.mergedUuids ?? [record.uuid];
    const later = lines.length > 1 ? lines.map((uuid) => this.held.get(uuid)?.[0]) : [];
    if (!keepHeld) for (const uuid of lines) this.release(uuid, "first");
    const out: SourceRecord = {
      sourceKey: record.uuid,
      hitId: transcriptHitId(CLAUDE_AGENT, this.session, record.uuid),
      conversation: this.conversation,
      at,
      role: record.turn.role,
      kind: "transcript",
      content: { type: "turn", turn: record.turn },
      cursor: offset === null ? null : String(offset),
      message: null,
      job: null,
      run: null,
      model: record.model ?? null,
      branch: record.gitBranch ?? null,
      ...(lines.length > 1 ? { supersedes: lines.filter((uuid) => uuid !== record.uuid) } : {}),
    };
    sink.record(out);
    for (const line of later) if (line !== undefined) sink.lineOf(line, at);
  }
}

export interface ClaudeSourceOptions {
  /** Config roots; default from CLAUDE_CONFIG_DIR, else ~/.claude and ~/.config/claude. */
  roots?: string[];
  maxLineBytes?: number;
}

export function createClaudeSource(env: Env, options: ClaudeSourceOptions = {}): JsonlFileSource {
  const roots = options.roots ?? agentRoots(env).claude;
  const resolver = new ProjectResolver();
  return new JsonlFileSource({
    name: CLAUDE_SOURCE,
    agent: CLAUDE_AGENT,
    roots: () => roots.map((r) => path.join(r, "projects")),
    rule: claudeWalkRule,
    identify: (file) => (classifyClaudePath(file) ? { key: file, priority: 0 } : null),
    needsHead: (file) => classifyClaudePath(file)?.kind === "flat-subagent",
    // Pending summary titles and a flat subagent's session: re-reading held lines adds neither twice.
    snapshotSurvivesReread: true,
    createParser: (context, state) => new ClaudeFileParser(context, state, resolver),
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
}
