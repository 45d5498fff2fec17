/**
 * What the JSONL base keeps per logical file: the checkpoint's state, the in-memory read state
 * of a file being read, and how a file is opened.
 */
import type { SourceCheckpoint } from "../types.js";
import { FileByteSource, ZstdByteSource, type ByteSource } from "./byte-source.js";
import type { OversizedLine } from "./jsonl-reader.js";
import type { JsonlParser } from "./jsonl-source.js";

/** What a file checkpoint's `state` column holds. */
export interface FileState {
  v: 1;
  /** The path read last (one of the key's candidates). */
  path: string;
  /** The name raw chunks are retained under: the first path this logical file was read from. */
  rawFile: string;
  conversation: string;
  epoch: number;
  /** Every byte before this was read (parsed or discarded) and retained. */
  readEnd: number;
  /** Retained extent in this epoch (can run ahead of readEnd after a rebuild). */
  rawEnd: number;
  /** Carried when the checkpoint offset sits inside an oversized line. */
  discarding: OversizedLine | null;
  /** Compressed files: decoded to their end at the recorded size and mtime. */
  complete: boolean;
  /** Plain files: the hash of the bytes before readEnd (head.ts tailHash), checked before reading on. */
  tail?: string | null;
  gone: boolean;
  /**
   * Drained at its end while it could still grow (written to within SETTLE_MS): the parser may
   * hold records until it settles, so the file is polled again then, changed or not.
   */
  unsettled?: true;
  parser: unknown;
  learned?: unknown;
}

export interface Live {
  path: string;
  bytes: ByteSource | null;
  parser: JsonlParser;
  readEnd: number;
  discarding: OversizedLine | null;
  committedOffset: number;
  /** Lines ending at or before this were counted by an earlier read. */
  countedEnd: number;
  storedSize: number;
  storedMtime: number;
  state: FileState;
}

/** A file to be read from its first byte, in the epoch and retained extent `kept` names. */
export function readFromStart(
  path: string,
  bytes: ByteSource | null,
  parser: JsonlParser,
  kept: Pick<FileState, "v" | "rawFile" | "epoch" | "rawEnd"> & Partial<FileState>,
): Live {
  return {
    path,
    bytes,
    parser,
    readEnd: 0,
    discarding: null,
    committedOffset: -1,
    countedEnd: 0,
    storedSize: 0,
    storedMtime: 0,
    state: {
      ...kept,
      path,
      conversation: parser.conversationId,
      readEnd: 0,
      discarding: null,
      complete: false,
      gone: false,
      parser: null,
    },
  };
}

export interface Tracked {
  key: string;
  /**
   * The paths this logical file was found under, with their priority (lowest read first): the
   * first one inline and any twins (an archived or compressed copy) in a map. A map for every
   * file cost about 160 bytes each: 3.3 MB of the indexing thread's heap at 21k Claude Code files.
   */
  file: string | null;
  priority: number;
  twins: Map<string, number> | null;
  live: Live | null;
  /** Stored size and mtime of the last checkpoint this process wrote or loaded. */
  size: number | null;
  mtime: number | null;
  gone: boolean;
  /** Last known logical backlog in bytes. */
  pending: number;
  /** The size and mtime at which the file was last found unreadable (counted once each). */
  unreadable: string | null;
  /** After a failed read system call: when the file is tried again though unchanged (0: no retry due). */
  retryAt: number;
  /** Consecutive failed read system calls, for the backoff. */
  ioFailures: number;
}

export interface Found {
  path: string;
  size: number;
  mtime: number;
}

export const isCompressed = (file: string) => file.endsWith(".zst");

export function openBytes(file: string): ByteSource & { mtimeMs: number } {
  return isCompressed(file) ? new ZstdByteSource(file) : new FileByteSource(file);
}

export function parseState(checkpoint: SourceCheckpoint | undefined): FileState | null {
  if (!checkpoint?.state) return null;
  try {
    const state = JSON.parse(checkpoint.state) as FileState;
    return state && state.v === 1 ? state : null;
  } catch {
    return null;
  }
}

/** Adds a path the logical file was found under; false when it was known. */
export function addCandidate(t: Tracked, file: string, priority: number): boolean {
  if (t.file === null) {
    t.file = file;
    t.priority = priority;
    return true;
  }
  if (t.file === file || t.twins?.has(file)) return false;
  (t.twins ??= new Map()).set(file, priority);
  return true;
}

/** The candidate paths, best first: by priority, then by name. */
export function orderedCandidates(t: Tracked): string[] {
  if (t.file === null) return [];
  if (t.twins === null) return [t.file];
  return [[t.file, t.priority] as const, ...t.twins]
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .map(([file]) => file);
}
