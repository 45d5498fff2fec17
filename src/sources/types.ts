import type { DocumentKind, Role } from "../core/kinds.js";
import type { TranscriptTurn } from "../core/transcript.js";

/** The retained context a record belongs to (a CLI session, a subagent, an app chat, a run). */
export interface ConversationRef {
  /** `claude:<sessionId>`, `claude:<sessionId>/agent-<agentId>`, `codex:<threadId>`, `opencode:<sessionId>`. */
  id: string;
  /** The source's name ("claude-code", "codex", "opencode", ...). */
  source: string;
  /** The search filter's agent value: "claude", "codex", "opencode", "other". */
  agent: string;
  kind: DocumentKind;
  /** Canonical project path (git root of the recorded cwd when it exists here, else the normalised cwd). */
  project: string | null;
  /** The `session` filter value of this conversation's documents. */
  session: string | null;
  /** The parent conversation id (subagents, child sessions). */
  parent: string | null;
  title: string | null;
  /** Latest git branch and model seen, when the source records them. */
  branch?: string | null;
  model?: string | null;
}

/** What a record says, before projection decides what may be indexed or returned. */
export type RecordContent =
  | { type: "turn"; turn: TranscriptTurn }
  | { type: "chat"; role: "user" | "assistant"; content: string; isCompactionSummary: boolean };

/** One source record, emitted by a source adapter and written by the indexer. */
export interface SourceRecord {
  /**
   * Unique within the source: re-reading a source never duplicates a record. It is also the
   * record's key inside its conversation. When another conversation already holds a document
   * with this key (Claude Code copies lines into resumed and forked sessions), the first one
   * keeps the document and this conversation keeps only its retained record.
   */
  sourceKey: string;
  hitId: string;
  conversation: ConversationRef;
  at: number;
  role: Role;
  kind: DocumentKind;
  content: RecordContent;
  /** Navigation cursor: the JSONL byte offset of the record's line, or an opencode message id. */
  cursor: string | null;
  message: string | null;
  job: string | null;
  run: string | null;
  model?: string | null;
  branch?: string | null;
  appId?: number;
  chatId?: number;
  /**
   * Identities besides `session` under which the `session` filter finds this record's document
   * (a bridge message's sender and every recipient: a broadcast stays one document).
   */
  participants?: string[];
  /**
   * Keys in this conversation whose lines this record now holds (a merged Claude response's
   * later lines; the response_item copy of a Codex message read with its event copy). A record
   * an older reader wrote under one of them, splitting the message, is removed when this one is
   * written, so a rebuild leaves the message once.
   */
  supersedes?: string[];
  /**
   * The version of its file the record was read from (a file's epoch: bumped each time it is
   * found shrunk or rewritten). Above 0, a record whose key the conversation already holds from
   * an earlier version with other text is kept beside it, not over it (indexer/ingest.ts).
   */
  epoch?: number;
}

export interface SourceCheckpoint {
  source: string;
  key: string;
  /** Parse position: every record before it has been committed. */
  offset: number;
  size: number | null;
  mtime: number | null;
  headHash: string | null;
  /** Source-specific JSON (parser state, epoch, retained extent...). */
  state: string | null;
}

/** Exact bytes as read from a source, retained so history survives the source's deletion. */
export interface RawChunk {
  source: string;
  /** The file (or database) the bytes came from; one logical file keeps one name across renames. */
  file: string;
  conversation: string | null;
  /** Byte offset of the chunk in the file (JSONL), or a row's update time for database rows. */
  offset: number;
  /** "row" for database rows (one JSON line each); bytes of a file otherwise. */
  unit?: "byte" | "row";
  bytes: Buffer;
  /** Bumped when a file is replaced (shrunk, or a different head): export returns the newest epoch. */
  epoch: number;
  /** Times of the records whose lines start in this chunk (for `recall forget --since/--until`). */
  firstAt: number | null;
  lastAt: number | null;
  /**
   * Rows re-read from a database after a rebuild: skip the chunk when an identical one (same
   * file, epoch, offset, length and conversation) is already retained.
   */
  dedupe?: boolean;
}

/**
 * A title that names whichever conversation holds the record `leaf` (a classic Claude Code
 * `summary` line, which Claude Code often writes into another session's file). Applied when that
 * record is already indexed and its conversation has no title yet; otherwise dropped.
 */
export interface TitleClaim {
  leaf: string;
  title: string;
  /** The conversation whose file held the claim: a forgotten one's claims are not applied. */
  origin: ConversationRef;
}

/** A name under which a session can be found with the `session` filter. */
export interface SessionAlias {
  alias: string;
  session: string;
  source: string;
}

export interface SourceCounters {
  /** Lines over the maximum line size, discarded from the index (their raw bytes are retained). */
  oversized: number;
  /** Lines or rows that did not parse. */
  malformed: number;
  /** Records read and deliberately not indexed (metadata lines, duplicates, unknown types). */
  skipped: number;
  /** Files found shrunk or rewritten: their earlier version's records stay, the new one is read too. */
  rewritten?: number;
  /** Files or folders that could not be opened or read (permissions, I/O errors, a folder in a file's place). */
  unreadable?: number;
}

/** Where a source stands: published as coverage. */
export interface SourceProgress {
  filesKnown: number;
  /** Files (or sessions) with bytes or rows not read yet, as far as the last poll knows. */
  backlogFiles: number;
  backlogBytes: number;
  /** Bytes (or rows) read so far by this process, for a progress bar. */
  doneBytes: number;
  /** True once a first discovery sweep has completed. */
  discovered: boolean;
  /**
   * Complete polling sweeps that found nothing new and nothing waiting. A backfill is done
   * when every source is idle and has completed one more clean sweep since it started.
   */
  cleanSweeps: number;
  /** Files the CLI deleted whose records are kept. */
  gone?: number;
  /** Files and folders that cannot be read now (permissions, I/O errors): how many, and some by name. */
  unreadable?: { count: number; paths: string[] };
}

/** A bounded unit of work: everything here commits in one transaction. */
export interface SourceBatch {
  /**
   * Conversations whose derived rows (documents, records) must be cleared first: a bridge run log
   * replaced or re-dated, derived again whole. (A transcript found shrunk or rewritten is not
   * reset: its earlier version stays, see SourceRecord.epoch.)
   */
  resets: string[];
  /** Conversation metadata learned without records (titles, parents, projects). */
  conversations: ConversationRef[];
  /**
   * Records the source no longer holds because the user deleted them on purpose (a message or a
   * chat deleted in an app): their retained record and document leave the index, and a
   * conversation left without records goes too. A CLI's clean-up of old transcripts is never
   * reported here (that history stays retained).
   */
  deletions?: { conversation: string; sourceKey: string }[];
  records: SourceRecord[];
  aliases: SessionAlias[];
  titleClaims?: TitleClaim[];
  rawChunks: RawChunk[];
  checkpoints: SourceCheckpoint[];
  counters: SourceCounters;
  progress: SourceProgress | null;
  /** False while the source has more to read right now. */
  idle: boolean;
}

export const emptyCounters = (): SourceCounters => ({ oversized: 0, malformed: 0, skipped: 0 });

export function emptyBatch(): SourceBatch {
  return {
    resets: [],
    conversations: [],
    records: [],
    aliases: [],
    rawChunks: [],
    checkpoints: [],
    counters: emptyCounters(),
    progress: null,
    idle: true,
  };
}

/** A batch that carries nothing yet but is not idle: its source has more to do first. */
export function busyBatch(progress: SourceProgress | null): SourceBatch {
  return { ...emptyBatch(), progress, idle: false };
}

/** What a retained file looks like in the index: its newest epoch, how far it is retained, and its first bytes. */
export interface RetainedExtent {
  epoch: number;
  /** First retained offset (above 0 when the oldest chunks were pruned by the retention bound). */
  start: number;
  end: number;
  /** The first bytes of the newest epoch (up to the requested length). */
  head: Buffer;
  conversation: string | null;
}

/** A retained raw chunk as a rebuild replays it: decompressed, with where it was read. */
export interface RetainedChunk {
  id: number;
  file: string;
  unit: "byte" | "row";
  offset: number;
  bytes: Buffer;
}

/**
 * Read access to what the indexer committed: checkpoints, and the retained raw bytes of
 * files (so a file the CLI deleted can be replayed by a rebuild). Sources never write.
 */
export interface IndexView {
  checkpoint(source: string, key: string): SourceCheckpoint | undefined;
  /**
   * Up to `limit` of a source's checkpoints with keys above `afterKey` (SQLite's byte order of
   * UTF-8, as keyAfter compares), in that order: a source with tens of thousands of files reads
   * them a page at a time (known-load.ts).
   */
  checkpointsAfter(source: string, afterKey: string, limit: number): SourceCheckpoint[];
  /** Up to `limit` files with retained raw bytes for this source above `afterFile`, in byte order. */
  retainedFilesAfter(source: string, afterFile: string, limit: number): string[];
  retainedExtent(source: string, file: string, headBytes: number): RetainedExtent | null;
  /** Up to `length` retained bytes of the newest epoch from `position` (fewer at a gap or the end). */
  readRetained(source: string, file: string, epoch: number, position: number, length: number): Buffer;
  /**
   * Up to `limit` retained conversations of a source with ids above `afterId`, by id, with the
   * metadata last written for them. Start from the source's id prefix (`opencode:`): ids below it
   * belong to other sources and are only skipped.
   */
  retainedConversations(source: string, afterId: string, limit: number): ConversationRef[];
  /** Up to `limit` retained chunks of a conversation with ids above `afterId`, oldest first. */
  retainedChunks(source: string, conversation: string, afterId: number, limit: number): RetainedChunk[];
  /** The newest retained chunk of each file directly or deeper under a folder, by file name. */
  retainedUnder(source: string, folder: string): RetainedChunk[];
}

/** Bounds on one batch: rows, bytes and time, plus the spec's per-tick discovery bounds. */
export interface Budget {
  maxRecords: number;
  maxBytes: number;
  /** True once the batch's time allowance is used: the source wraps up what it has. */
  expired: () => boolean;
  /** Filesystem entries a discovery step may examine (spec: 32 per tick). */
  maxEntries: number;
  /** Session rows per tick of a database source (opencode, SessionDatabaseSource; spec: 32). */
  maxSessionRows: number;
  /** Registered files polled for new bytes per tick (spec: 2). */
  maxFiles: number;
  /** The tick's time, for discovery cadence. */
  now: number;
  /** A foreground backfill: skip cadence throttles other than new-file discovery. */
  thorough?: boolean;
}

/** What a source's filesystem watch tells whoever runs its batches. */
export interface WatchHooks {
  /** Something changed under a watched folder: its next batch has news. Called per event; cheap. */
  changed(): void;
  /** Content-free lines (counts, error codes; never a path or any text). */
  log(line: string): void;
}

export interface Source {
  /** Stable name used in checkpoints, documents and coverage ("claude-code", "codex", ...). */
  readonly name: string;
  /** The agent filter value of its documents. */
  readonly agent: string;
  /**
   * Its history outlives what it reads (a CLI deletes old transcripts; recall keeps them): a
   * projection rebuild rewrites its documents as it re-reads them rather than deleting them
   * first, so a document it can no longer re-read (file deleted, retained bytes pruned) stays.
   */
  readonly retainsHistory?: boolean;
  /** Reads the next bounded batch from committed state. Never writes anything. */
  nextBatch(view: IndexView, budget: Budget): SourceBatch;
  /**
   * Watches its folders from now until close() (the broker's background worker only): a file
   * written there is considered by the next batch instead of the next discovery sweep, which
   * stays the backstop. A watch that fails only stops watching.
   */
  watch?(hooks: WatchHooks): void;
  /** Releases open handles (directory streams, databases, decompressors, watches). */
  close?(): void;
}
