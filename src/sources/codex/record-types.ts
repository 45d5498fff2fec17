/** The records and state of the Codex rollout parser (record.ts); plain JSON throughout. */
import type { TranscriptTurn } from "../../core/transcript.js";

export interface CodexSessionMeta {
  threadId: string;
  /** Newer builds; for subagents, the root thread's id. */
  sessionId?: string;
  at: number | null;
  cwd?: string;
  gitBranch?: string;
  gitCommit?: string;
  repositoryUrl?: string;
  cliVersion?: string;
  /** codex_cli_rs, codex_exec, codex_vscode, Codex Desktop, … */
  originator?: string;
  /** cli | vscode | exec | mcp | subagent (object sources collapse to "subagent"). */
  source?: string;
  /** thread_spawn | review | compact | other… when `source` is a subagent object. */
  subagentKind?: string;
  threadSource?: string;
  /** The spawning thread, from source.subagent.thread_spawn.parent_thread_id or parent_thread_id. */
  parentThreadId?: string;
  forkedFromId?: string;
  agentNickname?: string;
  agentRole?: string;
  agentPath?: string;
  depth?: number;
  modelProvider?: string;
}

export type CodexLayer = "response_item" | "event_msg" | "compacted";

export interface CodexTurnRecord {
  type: "turn";
  layer: CodexLayer;
  /** The payload type, e.g. "message", "function_call", "item_completed:UserMessage". */
  item: string;
  itemId?: string;
  callId?: string;
  turnId?: string;
  /** Epoch ms; null when the line has no parseable timestamp. */
  at: number | null;
  /** From the latest turn_context. */
  model?: string;
  cwd?: string;
  turn: TranscriptTurn;
  /** Inside a fork's possible replay: hold until a `replay` verdict (see "Fork replay"). */
  provisional?: true;
  /** An event copy that replaced the held response_item copy of the same message. */
  replacesHeld?: true;
}

export interface CodexMetaRecord {
  type: "meta";
  meta: CodexSessionMeta;
}

export interface CodexTitleRecord {
  type: "title";
  title: string;
  at: number | null;
  /** Inside a fork's possible replay: hold until a `replay` verdict (see "Fork replay"). */
  provisional?: true;
}

/** A fork's replay verdict for the records still provisional: "parent" drops them, "own" keeps them. */
export interface CodexReplayRecord {
  type: "replay";
  verdict: "parent" | "own";
}

export interface CodexSkipRecord {
  type: "skip";
  /** "malformed", "duplicate-layer", "duplicate-call", "event-duplicate:<type>", `<type>`, `unknown:<type>`, … */
  reason: string;
}

export type CodexRecord =
  CodexTurnRecord | CodexMetaRecord | CodexTitleRecord | CodexSkipRecord | CodexReplayRecord;

export type Kind = "user" | "assistant";

/** What a write-like call writes, as the tool turn of its result shows it. */
export interface CodexWrite {
  name: string;
  /** The patched files, or the written path. */
  path?: string;
  /** A bounded head-and-tail preview (projection/tool-preview.ts), never the whole content. */
  content: string;
}

export interface Pending {
  kind: Kind;
  record: CodexTurnRecord;
  normalized: string;
  quietLines: number;
}

/** Everything the parser remembers between lines; plain JSON. */
export interface CodexParserState {
  v: 1;
  threadId: string | null;
  meta: CodexSessionMeta | null;
  firstMeta: CodexSessionMeta | null;
  model: string | null;
  cwd: string | null;
  turnId: string | null;
  eventLayer: { user: boolean; assistant: boolean };
  pending: Pending | null;
  /** Normalized texts released from response_item while the event layer was not elected. */
  released: { user: string[]; assistant: string[] };
  calls: string[];
  callNames: [string, string][];
  /** Bounded previews of what pending write-like calls write, by call id (see "Written content"). */
  writes?: [string, CodexWrite][];
  skipped: Record<string, number>;
  lines: number;
  turns: number;
  /** A fork whose replay is not known to be over: turn and title records are provisional. */
  replay?: boolean;
}

export interface CodexRolloutParser {
  push(line: string): CodexRecord[];
  flush(): CodexRecord[];
  /** The session's own session_meta, else the first one seen. */
  readonly meta: CodexSessionMeta | undefined;
  /** Line, turn and per-reason skip counts. */
  readonly stats: { lines: number; turns: number; skipped: Readonly<Record<string, number>> };
  snapshot(): CodexParserState;
}
