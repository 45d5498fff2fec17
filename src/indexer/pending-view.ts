import path from "node:path";
import { byteOrder } from "../sources/known-load.js";
import type { IndexView, SourceBatch, SourceCheckpoint } from "../sources/types.js";

/** What a handed-over batch changes in the index, as far as a source can read it back. */
interface Pending {
  seq: number;
  source: string;
  checkpoints: Map<string, SourceCheckpoint>;
  /** Files and conversations of its raw chunks. */
  files: Set<string>;
  conversations: Set<string>;
  /** It writes conversations, records or removals (retainedConversations may change). */
  touchesConversations: boolean;
}

export interface PendingView extends IndexView {
  /** A batch of tick `seq` handed to the writer: its facts hold until that tick commits. */
  add(seq: number, source: string, batch: SourceBatch): void;
}

/**
 * The pipeline thread's view: the committed index (its own read-only connection) overlaid with
 * the checkpoints of batches handed over but not committed yet, so its sources read what they
 * would read had every batch been written (as in-thread). Retained bytes and conversations are
 * not overlaid: a read that a pending batch may change first waits for that batch's commit
 * (`waitCommitted`). `committed()` is the last committed tick. `rawBounded`: raw retention
 * prunes a source's oldest chunks as it writes, so any pending chunk of the source counts.
 */
export function pendingView(
  base: IndexView,
  committed: () => number,
  waitCommitted: (seq: number) => void,
  rawBounded: boolean,
): PendingView {
  let pending: Pending[] = [];
  const live = (): Pending[] => {
    const upTo = committed();
    if (pending.length > 0 && pending[0]!.seq <= upTo) pending = pending.filter((p) => p.seq > upTo);
    return pending;
  };
  /** Waits until no pending batch of `source` matching `touches` is uncommitted. */
  const settle = (source: string, touches: (p: Pending) => boolean): void => {
    let last = 0;
    for (const p of live()) if (p.source === source && touches(p)) last = p.seq;
    if (last > 0) waitCommitted(last);
  };
  const fileTouched = (file: string) => (p: Pending) => (rawBounded ? p.files.size > 0 : p.files.has(file));
  return {
    add(seq, source, batch) {
      const checkpoints = new Map<string, SourceCheckpoint>();
      for (const cp of batch.checkpoints) {
        if (cp.source !== source) continue;
        checkpoints.set(cp.key, {
          source: cp.source,
          key: cp.key,
          offset: cp.offset,
          size: cp.size ?? null,
          mtime: cp.mtime ?? null,
          headHash: cp.headHash ?? null,
          state: cp.state ?? null,
        });
      }
      const files = new Set<string>();
      const conversations = new Set<string>();
      for (const chunk of batch.rawChunks) {
        files.add(chunk.file);
        if (chunk.conversation) conversations.add(chunk.conversation);
      }
      const touchesConversations =
        batch.records.length > 0 ||
        batch.conversations.length > 0 ||
        batch.resets.length > 0 ||
        (batch.deletions?.length ?? 0) > 0;
      if (checkpoints.size === 0 && files.size === 0 && !touchesConversations) return;
      pending.push({ seq, source, checkpoints, files, conversations, touchesConversations });
    },
    checkpoint(source, key) {
      const list = live();
      for (let i = list.length - 1; i >= 0; i--) {
        const p = list[i]!;
        if (p.source !== source) continue;
        const cp = p.checkpoints.get(key);
        if (cp) return { ...cp };
      }
      return base.checkpoint(source, key);
    },
    checkpointsAfter(source, afterKey, limit) {
      const page = base.checkpointsAfter(source, afterKey, limit);
      // Pending checkpoints past afterKey, the newest batch's last (live() is in tick order).
      const newer = new Map<string, SourceCheckpoint>();
      for (const p of live()) {
        if (p.source !== source) continue;
        for (const [key, cp] of p.checkpoints) if (byteOrder(key, afterKey) > 0) newer.set(key, cp);
      }
      if (newer.size === 0) return page;
      // A full page ends where the next begins: pending keys past it belong to a later page.
      const last = page.length >= limit ? page[page.length - 1]!.key : null;
      const merged = new Map(page.map((cp) => [cp.key, cp]));
      for (const [key, cp] of newer)
        if (last === null || byteOrder(key, last) <= 0) merged.set(key, { ...cp });
      return [...merged.values()].sort((a, b) => byteOrder(a.key, b.key)).slice(0, limit);
    },
    retainedFilesAfter(source, afterFile, limit) {
      settle(source, (p) => p.files.size > 0);
      return base.retainedFilesAfter(source, afterFile, limit);
    },
    retainedExtent(source, file, headBytes) {
      settle(source, fileTouched(file));
      return base.retainedExtent(source, file, headBytes);
    },
    readRetained(source, file, epoch, position, length) {
      settle(source, fileTouched(file));
      return base.readRetained(source, file, epoch, position, length);
    },
    retainedConversations(source, afterId, limit) {
      settle(source, (p) => p.touchesConversations);
      return base.retainedConversations(source, afterId, limit);
    },
    retainedChunks(source, conversation, afterId, limit) {
      settle(source, (p) => (rawBounded ? p.files.size > 0 : p.conversations.has(conversation)));
      return base.retainedChunks(source, conversation, afterId, limit);
    },
    retainedUnder(source, folder) {
      const prefix = folder + path.sep;
      settle(source, (p) => (rawBounded ? p.files.size > 0 : [...p.files].some((f) => f.startsWith(prefix))));
      return base.retainedUnder(source, folder);
    },
  };
}
